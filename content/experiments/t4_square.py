"""t4, notes §4: what the reference loses to cuBLAS at 4096^3, 8192^3 and with b = w.t(), and
what wins it back. Needs a GPU. This is the script, as it ran, behind the numbers in
content/t4_notes.md.

Variants of one kernel, each with every config below forced in turn, best kept:
  masked   the reference's loads: M, N and K masks every step
  even_k   no K mask when BLOCK_SIZE_K divides K (M and N masks stay)
  no_mask  no load masks at all (right only when the blocks divide M, N and K: an upper bound)

Run from the repository root: python3 content/experiments/t4_square.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench
from solutions.t4_matmul import grouped_tile


@triton.jit
def variant_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                   GROUP_SIZE_M: tl.constexpr, MASK_K: tl.constexpr, MASK_MN: tl.constexpr):
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
        if MASK_K:
            k_remaining = K - k * BLOCK_SIZE_K
            a_mask = offs_k[None, :] < k_remaining
            b_mask = offs_k[:, None] < k_remaining
            if MASK_MN:
                a_mask = a_mask & (offs_am[:, None] < M)
                b_mask = b_mask & (offs_bn[None, :] < N)
            a = tl.load(a_ptrs, mask=a_mask, other=0.0)
            b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        elif MASK_MN:
            a = tl.load(a_ptrs, mask=offs_am[:, None] < M, other=0.0)
            b = tl.load(b_ptrs, mask=offs_bn[None, :] < N, other=0.0)
        else:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


CONFIGS = [(128, 256, 64, 3, 8), (128, 256, 64, 4, 8), (256, 128, 64, 3, 8), (256, 128, 64, 4, 8),
           (128, 128, 64, 4, 8), (128, 128, 64, 3, 4), (128, 128, 32, 4, 4), (64, 256, 32, 4, 4)]
VARIANTS = {"masked": dict(MASK_K=True, MASK_MN=True), "even_k": dict(MASK_K=False, MASK_MN=True),
            "no_mask": dict(MASK_K=False, MASK_MN=False)}


def tflops(m, n, k, ms):
    return 2 * m * n * k / ms / 1e9


def best_config(a, b, c, flags):
    m, k = a.shape; n = b.shape[1]; results = []
    for bm, bn, bk, stages, warps in CONFIGS:
        grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
        f = lambda: variant_kernel[grid](a, b, c, m, n, k, *a.stride(), *b.stride(), *c.stride(), BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn,
                                         BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, num_stages=stages, num_warps=warps, **flags)
        try:
            f()
        except triton.runtime.errors.OutOfResources:
            continue
        assert torch.allclose(c.float(), a.float() @ b.float(), atol=1, rtol=0.02), (bm, bn, bk)
        results.append((tflops(m, n, k, do_bench(f, return_mode="median")), (bm, bn, bk, stages, warps)))
    return max(results)


for m, n, k, transposed in [(4096, 4096, 4096, False), (4096, 4096, 4096, True), (8192, 8192, 8192, False)]:
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16).t() if transposed else torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    cublas = tflops(m, n, k, do_bench(lambda: torch.matmul(a, b), return_mode="median"))
    print(f"{m}x{n}x{k}{', b = w.t()' if transposed else ''}: cuBLAS {cublas:.0f} TFLOP/s", flush=True)
    for name, flags in VARIANTS.items():
        t, cfg = best_config(a, b, c, flags)
        print(f"  {name}: {t:.0f} TFLOP/s ({t / cublas:.2f}x) with {cfg}", flush=True)
    print(f"  cuBLAS again: {tflops(m, n, k, do_bench(lambda: torch.matmul(a, b), return_mode='median')):.0f}", flush=True)
