"""t4, notes §4: why 1000 x 3000 x 2000 is slow, and what fixes it. Needs a GPU. This is the
script, as it ran, behind the numbers in content/t4_notes.md.

For each shape: cuBLAS; tutorial 03's wrapped offsets and the reference, both autotuned; then
the reference's kernel without (ALIGN=1) and with (ALIGN=8) the hint that 8 divides N, K and
the row strides, every config forced in turn, best kept, with what the PTX of the best config
loads and stores with. Then GROUP_SIZE_M 1 vs 8 at 4096^3 and 8192^3.

Run from the repository root: python3 content/experiments/t4_odd_shapes.py
"""
import re, sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench
from solutions.t4_matmul import GPU_CONFIGS, grouped_tile, matmul as reference_matmul
from tests.positives.t4_matmul.tutorial_wrapped_offsets import matmul as textbook_matmul


@triton.jit
def aligned_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                   GROUP_SIZE_M: tl.constexpr, ALIGN: tl.constexpr):
    # the reference's kernel without bias: the host checked that ALIGN divides these, so rounding
    # down changes no value, but the compiler now knows it (alone it only learns "a multiple of 16")
    N = N // ALIGN * ALIGN
    K = K // ALIGN * ALIGN
    stride_am = stride_am // ALIGN * ALIGN
    stride_bk = stride_bk // ALIGN * ALIGN
    stride_cm = stride_cm // ALIGN * ALIGN
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)
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


EXTRA = [(128, 128, 64, 3, 8), (128, 128, 64, 4, 4), (64, 128, 64, 4, 4), (128, 64, 64, 4, 4), (128, 256, 64, 4, 8), (64, 64, 64, 4, 4)]
SWEEP = list(dict.fromkeys([(c.kwargs["BLOCK_SIZE_M"], c.kwargs["BLOCK_SIZE_N"], c.kwargs["BLOCK_SIZE_K"], c.num_stages, c.num_warps) for c in GPU_CONFIGS] + EXTRA))
SHAPES = [(1000, 3000, 2000), (1024, 3072, 2048), (1000, 3072, 2000), (1024, 3000, 2048), (4096, 4096, 4096)]


def tflops(m, n, k, ms):
    return 2 * m * n * k / ms / 1e9


def ptx_loads(compiled):
    ptx = compiled.asm["ptx"]
    return {name: len(re.findall(pat, ptx)) for name, pat in [
        ("cp.async", r"cp\.async\.c[ag]"), ("ld.global 16-bit", r"ld\.global[^;]*\.b16 "), ("st.global 16-bit", r"st\.global[^;]*\.b16 "),
        ("st.global.v4", r"st\.global[^;]*\.v4"), ("wgmma", r"wgmma\.mma_async")]}


def sweep(kernel, a, b, c, extra):
    m, k = a.shape; n = b.shape[1]; best = None
    for bm, bn, bk, stages, warps in SWEEP:
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        f = lambda: kernel[grid](a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                 BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, num_stages=stages, num_warps=warps, **extra)
        compiled = f()
        assert torch.allclose(c.float(), (a.float() @ b.float()), atol=0.5, rtol=0.02), (bm, bn, bk)
        t = tflops(m, n, k, do_bench(f, return_mode="median"))
        if best is None or t > best[0]:
            best = (t, (bm, bn, bk, stages, warps), ptx_loads(compiled))
    return best


for m, n, k in SHAPES:
    a = torch.randn(m, k, device="cuda", dtype=torch.float16); b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    row = {"cuBLAS": tflops(m, n, k, do_bench(lambda: torch.matmul(a, b), return_mode="median")),
           "textbook (autotuned)": tflops(m, n, k, do_bench(lambda: textbook_matmul(a, b, c), return_mode="median")),
           "reference (autotuned)": tflops(m, n, k, do_bench(lambda: reference_matmul(a, b, c), return_mode="median"))}
    print(f"{m}x{n}x{k}: " + ", ".join(f"{name} {t:.0f}" for name, t in row.items()), flush=True)
    align = 8 if all(x % 8 == 0 for x in (n, k, a.stride(0), b.stride(0), c.stride(0))) else 1
    for extra in [{"ALIGN": 1}, {"ALIGN": align}]:
        t, cfg, loads = sweep(aligned_kernel, a, b, c, extra)
        name = f"ALIGN={extra['ALIGN']}"
        print(f"  {name} best of {len(SWEEP)} configs: {t:.0f} TFLOP/s ({t / row['cuBLAS']:.2f}x cuBLAS) with {cfg}; PTX {loads}", flush=True)

print("GROUP_SIZE_M, ALIGN=1 kernel at 128x256x64, 3 stages, 8 warps (TFLOP/s, 3 alternating rounds):", flush=True)
for size in (4096, 8192):
    a = torch.randn(size, size, device="cuda", dtype=torch.float16); b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16); grid = ((size // 128) * (size // 256),)
    results = {1: [], 8: []}
    for _ in range(3):
        for group in (1, 8):
            f = lambda: aligned_kernel[grid](a, b, c, size, size, size, *a.stride(), *b.stride(), *c.stride(), BLOCK_SIZE_M=128,
                                             BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=group, num_stages=3, num_warps=8, ALIGN=1)
            results[group].append(tflops(size, size, size, do_bench(f, return_mode="median")))
    print(f"  {size}^3: " + ", ".join(f"GROUP_SIZE_M={g}: " + " ".join(f"{t:.0f}" for t in ts) for g, ts in results.items()), flush=True)
