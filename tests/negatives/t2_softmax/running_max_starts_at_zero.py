"""An online softmax over blocks of up to 4096 columns, rescaled as it should be, whose running max
starts at 0 instead of -inf: right for every row whose max is above 0, but in a row far below 0
the max stays 0, every exp() underflows to 0, and 0 / 0 is NaN."""

import torch
import triton
import triton.language as tl

LOSES = ["padding"]
SAYS = "start a running max at -inf"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x_row, stride_out_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    running_max = 0.0  # the mistake: -float("inf"), so that the row's own values set it
    running_sum = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=-float("inf"))
        new_max = tl.maximum(running_max, tl.max(x.to(tl.float32), axis=0))
        running_sum = running_sum * tl.exp(running_max - new_max) + tl.sum(
            tl.exp(x.to(tl.float32) - new_max), axis=0
        )
        running_max = new_max
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x.to(tl.float32) - running_max) / running_sum
        tl.store(out_ptr + row * stride_out_row + cols, y, mask=mask)


def softmax(x, out=None):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device) if out is None else out
    n_rows, n_cols = x.shape
    block = min(triton.next_power_of_2(n_cols), 4096)
    softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=block)
    return out
