"""Loads the whole block unmasked: lanes past n_cols read the next row or the gap."""

import torch
import triton
import triton.language as tl

from solutions.t2_softmax import check_inputs

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "outside"
# the stray values are replaced before use, so only the interpreter sees the reads
RUNTIMES = ["interpreter"]


@triton.jit
def softmax_kernel(
    x_ptr, out_ptr, n_rows, n_cols, stride_x_row, stride_out_row, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x_row + cols).to(tl.float32)
    x = tl.where(mask, x, -float("inf"))
    num = tl.exp(x - tl.max(x, axis=0))
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride_out_row + cols, y, mask=mask)


def softmax(x, out=None):
    check_inputs(x, out)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device) if out is None else out
    n_rows, n_cols = x.shape
    softmax_kernel[(n_rows,)](
        x,
        out,
        n_rows,
        n_cols,
        x.stride(0),
        out.stride(0),
        BLOCK_SIZE=triton.next_power_of_2(n_cols),
    )
    return out
