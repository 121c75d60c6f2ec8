"""A kernel body that computes with torch: the interpreter runs @triton.jit bodies as Python,
so a kernel made inside the host function (never read by the judge) adds x and y with torch
when launched. A do-nothing kernel of the same name at top level is what the compile check
used to compile.

Forged 90-100 on the grader of commit fbeefee (issue 23).
"""

ATTACK = "torch inside a kernel body, with a decoy kernel of the same name"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def make_kernel():
    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        out_ptr.copy_(x_ptr + y_ptr)

    return add_kernel


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    make_kernel()[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
