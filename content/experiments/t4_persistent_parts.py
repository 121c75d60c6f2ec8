"""t4, notes §3 and §4: which part of the persistent kernel closes the b = w.t() gap, the TMA
loads or the loop over tiles? Needs a GPU. This is the script, as it ran, behind the numbers in
content/t4_notes.md.

At 4096^3 fp16, both layouts of b, beside cuBLAS; each variant forced to three configs, best kept:
  reference      solutions.t4_matmul_persistent.matmul as it dispatches (autotuned); the stored
                 output is from before that module launched the persistent kernel for a
                 row-major b and cached its launches (commit 5ae3678)
  blocks         matmul_kernel: pointer blocks, one program per tile
  blocks_pers    pointer blocks, one program per SM looping over tiles (flatten=True)
  tma_pers       a copy of the reference's matmul_persistent_kernel (bias left out), with
                 flatten=True as in the reference and with flatten=False

Run from the repository root: python3 content/experiments/t4_persistent_parts.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench
from solutions import t4_matmul_persistent as ref
from solutions.t4_matmul import grouped_tile, matmul_kernel


@triton.jit
def blocks_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                             GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        offs_k = tl.arange(0, BLOCK_SIZE_K)
        a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
            k_remaining = K - k * BLOCK_SIZE_K
            a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < k_remaining), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_SIZE_K * stride_ak
            b_ptrs += BLOCK_SIZE_K * stride_bk
        c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@triton.jit
def tma_persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm, B_KMAJOR: tl.constexpr,
                          NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                          BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, FLATTEN: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
            if B_KMAJOR:
                b = b_desc.load([offs_bn, k * BLOCK_SIZE_K]).T
            else:
                b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
            acc = tl.dot(a, b, acc)
        c_desc.store([offs_am, offs_bn], acc.to(tl.float16))


NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
TILES = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8)]


def force(kernel, bm, bn, bk, stages, warps):
    kernel.configs = [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                                    num_stages=stages, num_warps=warps)]
    kernel.cache.clear()


def blocks(a, b, c, *tile):
    force(matmul_kernel, *tile)
    matmul_kernel[lambda META: (triton.cdiv(a.shape[0], META["BLOCK_SIZE_M"]) * triton.cdiv(b.shape[1], META["BLOCK_SIZE_N"]),)](
        a, b, c, None, a.shape[0], b.shape[1], a.shape[1], *a.stride(), *b.stride(), *c.stride())


def blocks_pers(a, b, c, bm, bn, bk, stages, warps):
    M, K = a.shape
    N = b.shape[1]
    grid = (min(NUM_SMS, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
    blocks_persistent_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                   BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, NUM_SMS=NUM_SMS, num_stages=stages, num_warps=warps)


def tma_pers(a, b, c, bm, bn, bk, stages, warps, flatten=True):
    M, K = a.shape
    N = b.shape[1]
    b_kmajor = ref.descriptor_layout(a, b, c)
    grid = (min(NUM_SMS, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
    tma_persistent_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(1) if b_kmajor else b.stride(0), c.stride(0), b_kmajor,
                                NUM_SMS, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, FLATTEN=flatten,
                                num_stages=stages, num_warps=warps)


def best(name, run, a, b, c, size):
    expected = a.float() @ b.float()
    results = []
    for tile in TILES:
        c.fill_(float("nan"))
        try:
            run(a, b, c, *tile)
        except Exception as e:
            print(f"    {name} {tile}: {type(e).__name__}: {str(e).splitlines()[0][:120]}", flush=True)
            continue
        assert torch.allclose(c.float(), expected, atol=1, rtol=0.02), (name, tile)
        tflops = 2 * size**3 / do_bench(lambda: run(a, b, c, *tile), return_mode="median") / 1e9
        results.append((tflops, tile))
        print(f"    {name} {tile}: {tflops:.0f}", flush=True)
    return max(results) if results else None


triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
size = 4096
torch.manual_seed(0)
a = torch.randn(size, size, device="cuda", dtype=torch.float16)
w = torch.randn(size, size, device="cuda", dtype=torch.float16)
for layout, b in (("b = w.t()", w.t()), ("row-major b", w)):
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    tflops = lambda f: 2 * size**3 / do_bench(f, return_mode="median") / 1e9
    print(f"{layout}: cuBLAS {tflops(lambda: torch.matmul(a, b)):.0f}, reference (autotuned) "
          f"{tflops(lambda: ref.matmul(a, b, c)):.0f} TFLOP/s", flush=True)
    summary = {"blocks": best("blocks", blocks, a, b, c, size), "blocks_pers": best("blocks_pers", blocks_pers, a, b, c, size),
               "tma_pers, flatten=False": best("tma_pers, flatten=False", lambda *t: tma_pers(*t, flatten=False), a, b, c, size),
               "tma_pers": best("tma_pers", tma_pers, a, b, c, size)}
    print(f"{layout}: cuBLAS {tflops(lambda: torch.matmul(a, b)):.0f} TFLOP/s (again)", flush=True)
    for name, result in summary.items():
        print(f"  best {name}: " + (f"{result[0]:.0f} TFLOP/s at {result[1]}" if result else "none ran"), flush=True)
