"""t4, notes §4: why b = w.t() is slower than row-major b in the reference, and what closes
the gap. Needs a GPU. This is the script, as it ran, behind the numbers in content/t4_notes.md.

At 4096^3 and 8192^3 fp16, both layouts of b, beside cuBLAS. Each variant is forced to every
config below in turn, best kept:
  pointer    the reference's matmul_kernel (pointer blocks, cp.async), GROUP_SIZE_M 8
  pointer_g  the same, GROUP_SIZE_M 1, 4, 16 and 32 (does the L2 order matter more for w.t()?)
  nk_tile    pointer blocks, but b's tile is loaded as [BLOCK_SIZE_N, BLOCK_SIZE_K] and
             transposed in the dot (the orientation w is stored in)
  tma        tensor descriptors (the TMA unit copies whole tiles), one program per tile
  tma_pers   tensor descriptors, one program per SM looping over tiles (Triton tutorial 09)

It ran through matmul, which then launched matmul_kernel for every layout; it now calls
the drill's launch (launch_tiled here): the benchmark's reference sends b = w.t() to the
persistent kernel on a Hopper GPU.

Run from the repository root: python3 content/experiments/t4_transposed_b_tma.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench
from solutions.t4_matmul import grouped_tile, launch as launch_tiled, matmul_kernel


@triton.jit
def nk_tile_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid_m, pid_n = grouped_tile(tl.program_id(0), tl.cdiv(M, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N), GROUP_SIZE_M)
    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    bt_ptrs = b_ptr + offs_bn[:, None] * stride_bn + offs_k[None, :] * stride_bk  # [BN, BK]
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        k_remaining = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
        bt = tl.load(bt_ptrs, mask=(offs_bn[:, None] < N) & (offs_k[None, :] < k_remaining), other=0.0)
        acc = tl.dot(a, bt.T, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        bt_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@triton.jit
def descriptors(a_ptr, b_ptr, c_ptr, M, N, K, B_KMAJOR: tl.constexpr,
                BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    # a and c row-major; b either w.t() (w = [N, K] row-major) or row-major [K, N]
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    return a_desc, b_desc, c_desc


@triton.jit
def tma_tile(a_desc, b_desc, c_desc, pid_m, pid_n, K, B_KMAJOR: tl.constexpr,
             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
        if B_KMAJOR:
            acc = tl.dot(a, b_desc.load([pid_n * BLOCK_SIZE_N, k * BLOCK_SIZE_K]).T, acc)
        else:
            acc = tl.dot(a, b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N]), acc)
    c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))


@triton.jit
def tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K, B_KMAJOR: tl.constexpr,
               BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    a_desc, b_desc, c_desc = descriptors(a_ptr, b_ptr, c_ptr, M, N, K, B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)
    pid_m, pid_n = grouped_tile(tl.program_id(0), tl.cdiv(M, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N), GROUP_SIZE_M)
    tma_tile(a_desc, b_desc, c_desc, pid_m, pid_n, K, B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)


@triton.jit
def tma_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, B_KMAJOR: tl.constexpr,
                          BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    a_desc, b_desc, c_desc = descriptors(a_ptr, b_ptr, c_ptr, M, N, K, B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        tma_tile(a_desc, b_desc, c_desc, pid_m, pid_n, K, B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)


# device-side descriptors live in a scratch buffer that Triton asks the host for
triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
TILES = [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8), (256, 128, 64, 3, 8), (256, 128, 64, 4, 8), (128, 128, 64, 4, 4),
         (128, 128, 64, 4, 8), (128, 256, 128, 2, 8)]


def launch_variant(kernel, a, b, c, b_kmajor, bm, bn, bk, stages, warps, group):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    meta = dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=group, num_stages=stages, num_warps=warps)
    if kernel is nk_tile_kernel:
        kernel[(tiles,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1), **meta)
    elif kernel is tma_kernel:
        kernel[(tiles,)](a, b, c, M, N, K, b_kmajor, **meta)
    else:
        kernel[(min(NUM_SMS, tiles),)](a, b, c, M, N, K, b_kmajor, NUM_SMS=NUM_SMS, **meta)


def forced_reference(a, b, c, bm, bn, bk, stages, warps, group):
    matmul_kernel.configs = [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": group},
                                           num_stages=stages, num_warps=warps)]
    matmul_kernel.cache.clear()
    launch_tiled(a, b, c, None)


def best(name, run, a, b, c, size, groups=(8,)):
    expected = a.float() @ b.float()
    results = []
    for tile in TILES:
        for group in groups:
            try:
                c.fill_(float("nan"))
                run(*tile, group)
            except Exception as e:  # out of shared memory, or a layout this triton refuses
                print(f"    {name} {tile} g{group}: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
                continue
            if not torch.allclose(c.float(), expected, atol=1, rtol=0.02):
                print(f"    {name} {tile} g{group}: WRONG RESULT", flush=True)
                continue
            tflops = 2 * size**3 / do_bench(lambda: run(*tile, group), return_mode="median") / 1e9
            results.append((tflops, tile, group))
            print(f"    {name} {tile} g{group}: {tflops:.0f}", flush=True)
    return max(results) if results else None


for size in (4096, 8192):
    torch.manual_seed(0)
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    w = torch.randn(size, size, device="cuda", dtype=torch.float16)
    for layout, b, b_kmajor in (("b = w.t()", w.t(), True), ("row-major b", w, False)):
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        cublas = lambda: 2 * size**3 / do_bench(lambda: torch.matmul(a, b), return_mode="median") / 1e9
        print(f"{size}^3 {layout}: cuBLAS {cublas():.0f} TFLOP/s", flush=True)
        summary = {}
        summary["pointer"] = best("pointer", lambda *t: forced_reference(a, b, c, *t), a, b, c, size)
        if size == 4096:
            summary["pointer_g"] = best("pointer_g", lambda *t: forced_reference(a, b, c, *t), a, b, c, size, (1, 4, 16, 32))
        summary["nk_tile"] = best("nk_tile", lambda *t: launch_variant(nk_tile_kernel, a, b, c, b_kmajor, *t), a, b, c, size)
        summary["tma"] = best("tma", lambda *t: launch_variant(tma_kernel, a, b, c, b_kmajor, *t), a, b, c, size)
        summary["tma_pers"] = best("tma_pers", lambda *t: launch_variant(tma_persistent_kernel, a, b, c, b_kmajor, *t), a, b, c, size)
        print(f"{size}^3 {layout}: cuBLAS {cublas():.0f} TFLOP/s (again)", flush=True)
        for name, result in summary.items():
            print(f"  best {name}: " + (f"{result[0]:.0f} TFLOP/s at {result[1]} g{result[2]}" if result else "none ran"), flush=True)
