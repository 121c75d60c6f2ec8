"""t4, notes §3 and §4: where does the persistent kernel beat one program per tile? Needs a GPU.
This is the script, as it ran, behind the numbers in content/t4_notes.md.

The benchmark's shapes, each with b row-major and b = w.t(), beside cuBLAS (TFLOP/s); every
kernel autotuned over its own list:
  blocks     the reference's matmul_kernel (pointer blocks, one program per tile)
  pers       the reference's matmul_persistent_kernel (tensor descriptors, one program per SM),
             through launch_persistent; the stored output is from before launch_persistent
             cached its launches (commit 5ae3678), so each call went through the autotuner
  pers_nofl  the same with flatten=False (a copy, bias left out)

Run from the repository root: python3 content/experiments/t4_persistent_shapes.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench
from solutions import t4_matmul_persistent as ref
from solutions.t4_matmul import grouped_tile, matmul_kernel


@triton.autotune(configs=ref.PERSISTENT_GPU_CONFIGS, key=["M", "N", "K", "B_KMAJOR"])
@triton.jit
def unflattened_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm, B_KMAJOR: tl.constexpr,
                       NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=False):
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


def blocks(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
    matmul_kernel[grid](a, b, c, None, M, N, K, *a.stride(), *b.stride(), *c.stride())


def pers_nofl(a, b, c):
    M, K = a.shape
    N = b.shape[1]
    b_kmajor = ref.descriptor_layout(a, b, c)
    grid = lambda META: (min(NUM_SMS, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])),)
    unflattened_kernel[grid](a, b, c, M, N, K, a.stride(0), b.stride(1) if b_kmajor else b.stride(0), c.stride(0), b_kmajor, NUM_SMS)


triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
print("M x N x K, layout: cuBLAS | blocks | pers | pers_nofl (TFLOP/s), then each best config")
for M, N, K in [(16, 4096, 4096), (1000, 3000, 2000), (4096, 4096, 512), (4096, 4096, 4096), (8192, 1024, 8192), (8192, 8192, 8192)]:
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    for layout in ("row-major", "w.t()"):
        b = torch.randn(N, K, device="cuda", dtype=torch.float16).t() if layout == "w.t()" else torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        expected = a.float() @ b.float()
        tflops = {}
        for name, fn in (("cuBLAS", lambda: torch.matmul(a, b)), ("blocks", lambda: blocks(a, b, c)),
                         ("pers", lambda: ref.launch_persistent(a, b, c, None)), ("pers_nofl", lambda: pers_nofl(a, b, c))):
            c.fill_(float("nan"))
            fn()
            if name != "cuBLAS":
                assert torch.allclose(c.float(), expected, atol=1, rtol=0.02), (name, M, N, K, layout)
            tflops[name] = 2 * M * N * K / do_bench(fn, return_mode="median") / 1e9
        picks = [k.best_config for k in (matmul_kernel, ref.matmul_persistent_kernel, unflattened_kernel)]
        print(f"{M}x{N}x{K}, {layout}: " + " | ".join(f"{v:.0f}" for v in tflops.values()), flush=True)
        print("    " + " / ".join(f"{p.kwargs['BLOCK_SIZE_M']}x{p.kwargs['BLOCK_SIZE_N']}x{p.kwargs['BLOCK_SIZE_K']} s{p.num_stages} w{p.num_warps}" for p in picks), flush=True)
