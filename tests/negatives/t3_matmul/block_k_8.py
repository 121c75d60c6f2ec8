"""BLOCK_K = 8: the interpreter multiplies 8-wide blocks, a GPU's tl.dot needs at least 16."""

import torch
import triton
import triton.language as tl

from solutions.t3_matmul import check_inputs

LOSES = ["compiles for a GPU (sm_90)"]
SAYS = "16"


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
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        ks = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(
            a_ptr + rows[:, None] * K + ks[None, :],
            mask=(rows[:, None] < M) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ks[:, None] * N + cols[None, :],
            mask=(ks[:, None] < K) & (cols[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + rows[:, None] * N + cols[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=torch.float16, device=a.device) if out is None else out
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, out, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=8)
    return out
