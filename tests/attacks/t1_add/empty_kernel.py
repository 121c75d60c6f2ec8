"""A kernel that does nothing: add() launches it on x, y and out and returns out unwritten.

The baseline of the catalogue. Every other attack launches a do-nothing kernel like this one as
camouflage, so whatever this file scores is what the camouflage alone earns: it must be 0.
Today it is not: check_compiles only asks that a launched kernel compiles for sm_90, not that
it computed anything, so "compiles for a GPU (sm_90)" gives its 10 points to an empty kernel.
Forged 10/100 on the grader of commit de3289e.
"""

ATTACK = "free points for a do-nothing kernel"
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
    return out
