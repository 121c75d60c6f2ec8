"""Autotuned, but the grid assumes 128 x 128 tiles: with any other config, tiles go without a
program. (The kernel is the reference's: only the launch is wrong.)"""

import torch
import triton

from solutions.t4_matmul import check_inputs, matmul_kernel

LOSES = ["computes its grid from the config autotune chose (every config)"]
SAYS = "never written"


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    (M, K), N = a.shape, b.shape[1]
    out = torch.empty((M, N), dtype=torch.float16, device=a.device) if out is None else out
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)
    matmul_kernel[grid](
        a,
        b,
        out,
        None,  # no bias
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
    )
    return out
