"""numpy: out.numpy()[:] = x.numpy() + y.numpy() (numpy never goes through torch's dispatcher,
so no spy sees it), beside a launch of a kernel that does nothing. On a GPU .numpy() raises, so
this is an interpreter-only forgery.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "numpy compute"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    out.numpy()[:] = x.numpy() + y.numpy()
    return out
