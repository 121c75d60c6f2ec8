"""Unlisted torch ops: c = a @ b with torch.baddbmm in float64 (the forbidden-op list names mm,
matmul, bmm, addmm, einsum, dot, mul, sum, copy_, but not baddbmm), rounded into out with
torch.add(c, 0, out=out). Beside a launch of a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "unlisted torch ops"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(axis=0)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    matmul_kernel[(1, 1)](a, b, out, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32)
    zero = torch.zeros((1, M, N), dtype=torch.float64, device=a.device)
    c = torch.baddbmm(zero, a.double().unsqueeze(0), b.double().unsqueeze(0))
    torch.add(c[0], 0, out=out)
    return out
