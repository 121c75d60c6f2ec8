"""Correct, written differently: BLOCK_SIZE 128, two blocks per program, 2 warps."""

import torch
import triton
import triton.language as tl

from solutions.t1_add import check_inputs


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * 2 * BLOCK_SIZE
    for i in tl.static_range(2):
        offs = start + i * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offs < n_elements
        total = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, total, mask=mask)


def add(x, y, out=None):
    check_inputs(x, y, out)
    out = torch.empty_like(x) if out is None else out
    n = x.numel()
    add_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=128, num_warps=2)
    return out
