"""Rows of up to 4096 columns in one block; longer rows in three passes over chunks of 4096
(max, sum, write), whose max pass stops one chunk early: range(0, n_cols - BLOCK_SIZE,
BLOCK_SIZE) never reaches the last chunk. Subtracting a smaller max changes nothing while exp()
stays finite, so it is wrong only when the last chunk holds a value far (> 88) above the rest
of the row: exp() overflows to inf and the row comes out NaN."""

import torch
import triton
import triton.language as tl

LOSES = ["wide"]
SAYS = "overflow"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x_row, stride_out_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=-float("inf"))
    x = x.to(tl.float32)
    numerator = tl.exp(x - tl.max(x, axis=0))
    y = numerator / tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * stride_out_row + cols, y, mask=mask)


@triton.jit
def softmax_chunked_kernel(
    x_ptr, out_ptr, n_cols, stride_x_row, stride_out_row, BLOCK_SIZE: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x_row
    out_row = out_ptr + row * stride_out_row
    row_max = -float("inf")
    # the mistake: the last chunk starts at or after n_cols - BLOCK_SIZE, so it is never read
    for start in range(0, n_cols - BLOCK_SIZE, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_max = tl.maximum(row_max, tl.max(x.to(tl.float32), axis=0))
    row_sum = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"))
        row_sum += tl.sum(tl.exp(x.to(tl.float32) - row_max), axis=0)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=-float("inf"))
        y = tl.exp(x.to(tl.float32) - row_max) / row_sum
        tl.store(out_row + cols, y, mask=mask)


def softmax(x, out=None):
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device) if out is None else out
    n_rows, n_cols = x.shape
    if n_cols <= 4096:
        block = triton.next_power_of_2(n_cols)
        kernel = softmax_kernel
    else:
        block = 4096
        kernel = softmax_chunked_kernel
    kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=block)
    return out
