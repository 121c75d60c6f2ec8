"""numpy: out.numpy()[:] = (a.numpy() in float64 @ b.numpy() in float64) rounded to fp16:
numpy never goes through torch's dispatcher, and .numpy() keeps the strides of sliced or
transposed operands. Beside a launch of a kernel that does nothing. Interpreter only (.numpy()
raises on a GPU tensor).

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "numpy compute"
LAYER = "kernels"

import numpy as np
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
    product = a.numpy().astype(np.float64) @ b.numpy().astype(np.float64)
    out.numpy()[:] = product.astype(np.float16)
    return out
