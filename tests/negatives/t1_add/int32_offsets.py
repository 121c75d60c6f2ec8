"""The textbook offsets, pid * BLOCK_SIZE in int32: past 2^31 elements they wrap negative."""

import torch
import triton
import triton.language as tl

from solutions.t1_add import check_inputs

LOSES = ["indexes past 2^31 elements (int64 offsets)"]
SAYS = "2^31"
RUNTIMES = ["gpu"]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y, out=None):
    check_inputs(x, y, out)
    out = torch.empty_like(x) if out is None else out
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
