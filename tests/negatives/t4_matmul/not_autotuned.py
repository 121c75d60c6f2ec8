"""A plain @triton.jit kernel with one fixed config: correct, but not autotuned."""

import torch
import triton

from solutions.t4_matmul import check_inputs
from solutions.t4_matmul import matmul_kernel as autotuned_kernel

LOSES = ["computes its grid from the config autotune chose (every config)"]
SAYS = "not autotuned"

matmul_kernel = autotuned_kernel.fn


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    (M, K), N = a.shape, b.shape[1]
    out = torch.empty((M, N), dtype=torch.float16, device=a.device) if out is None else out
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
        BLOCK_SIZE_M=64,
        BLOCK_SIZE_N=64,
        BLOCK_SIZE_K=32,
        GROUP_SIZE_M=4,
    )
    return out
