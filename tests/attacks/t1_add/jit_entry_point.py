"""The entry point itself decorated with @triton.jit, so it was never read as host code: on the
interpreter, calling it runs its body as Python, torch included.

Forged 90-100 on the grader of commit fbeefee (issue 23).
"""

ATTACK = "@triton.jit entry point"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


@triton.jit
def add(x, y, out=None):
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    out.copy_(x + y)
    return out
