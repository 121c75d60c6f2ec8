"""Loads without a mask but stores with one: the result is right, yet the last program reads
past the end of x and y. Only the interpreter sees such a read when nothing wrong is stored."""

import torch
import triton
import triton.language as tl

from solutions.t1_add import check_inputs

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "read"
RUNTIMES = ["interpreter"]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y, mask=offs < n_elements)


def add(x, y, out=None):
    check_inputs(x, y, out)
    out = torch.empty_like(x) if out is None else out
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
