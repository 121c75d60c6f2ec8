"""An online softmax over blocks of up to 4096 columns whose running sum is never rescaled when
the running max grows. Right while each row's max lies in its first block."""

import torch
import triton
import triton.language as tl

LOSES = ["wide"]
SAYS = "the running sum over blocks of 4096 columns"


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, stride_x_row, stride_out_row, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    running_max = -float("inf")
    running_sum = 0.0
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=-float("inf"))
        running_max = tl.maximum(running_max, tl.max(x.to(tl.float32), axis=0))
        # the mistake: what was summed under the old max is not multiplied by
        # exp(old_max - running_max)
        running_sum += tl.sum(tl.exp(x.to(tl.float32) - running_max), axis=0)
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
