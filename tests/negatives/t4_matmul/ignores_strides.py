"""Passes strides as if every operand were row-major and contiguous. (The kernel is the
reference's: only the launch is wrong.)"""

import torch
import triton

from solutions.t4_matmul import check_inputs, matmul_kernel

LOSES = ["follows the strides of a, b and c (w.t(), slices)"]
SAYS = "strides"


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    (M, K), N = a.shape, b.shape[1]
    out = torch.empty((M, N), dtype=torch.float16, device=a.device) if out is None else out
    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),
    )
    matmul_kernel[grid](a, b, out, None, M, N, K, K, 1, N, 1, N, 1)
    return out
