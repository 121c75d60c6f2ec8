"""t2, beyond the drill: softmax with long rows split across programs, on a GPU.

The drill's kernel holds a whole row in one program. At 64K columns that row no longer fits in
one program's registers and spills (content/t2_notes.md, "Long rows"): on an H200 it moved 60%
(fp32) and 49% (fp16) of the copy bandwidth. Here SPLIT programs share a row, each holding its
part in registers: each reduces its part to a max and a sum of exponentials, publishes the two,
waits for the other programs of its row, combines the SPLIT pairs into the row's max and sum,
and writes its part from the values it still holds. x is read once and the result written
once; content/experiments/t2_split_rows.py measured 81% (fp32) and 63% (fp16).

The wait needs every program of a row running at once. A row's programs are neighbours in the
grid, which NVIDIA GPUs start in order, so the programs a program waits on have started, or
will start on the next free slot, as long as the GPU holds more programs at once than a row
has: it holds hundreds, a row has 8. The interpreter runs programs one after another, and
would wait forever: softmax here splits rows only on a GPU, and otherwise calls the drill's.

`make bench` times this module as T2's reference. The drill never asks for any of it.
"""

import torch
import triton
import triton.language as tl

from solutions.t2_softmax import check_inputs
from solutions.t2_softmax import softmax as softmax_whole_rows

# Rows longer than this are split. On an H200 a split lost at 16K columns (85% of the copy
# bandwidth against the whole row's 95% in fp32) and won at 64K (content/t2_notes.md).
SPLIT_ABOVE = 32768
# Each program's part of a row: 8 parts of a 64K row measured best, in fp32 and fp16.
PART = 8192


@triton.jit
def softmax_split_kernel(
    x_ptr,
    out_ptr,
    max_ptr,  # [n_rows, SPLIT] fp32: each part's max
    sum_ptr,  # [n_rows, SPLIT] fp32: each part's sum of exp(x - its max)
    counts_ptr,  # [2, n_rows] int32, 0 on entry and on exit: arrived, then left
    n_rows,
    n_cols,
    stride_x_row,
    stride_out_row,
    SPLIT: tl.constexpr,  # programs a row
    SPLIT_BLOCK: tl.constexpr,  # SPLIT rounded up to a power of two, for tl.arange
    PART_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0) // SPLIT
    part = tl.program_id(axis=0) % SPLIT
    cols = part * PART_SIZE + tl.arange(0, PART_SIZE)
    mask = cols < n_cols
    x_ptrs = x_ptr + row.to(tl.int64) * stride_x_row + cols
    x = tl.load(x_ptrs, mask=mask, other=-float("inf")).to(tl.float32)
    part_max = tl.max(x, axis=0)
    # a part of masked logits, all -inf, would take exp(-inf - -inf) = NaN: its sum is 0 against
    # any max, so take it against 0
    shift = tl.where(part_max == -float("inf"), 0.0, part_max)
    tl.store(max_ptr + row * SPLIT + part, part_max)
    tl.store(sum_ptr + row * SPLIT + part, tl.sum(tl.exp(x - shift), axis=0))

    # release: whoever reads the count this add makes also sees the two stores above
    arrived = tl.atomic_add(counts_ptr + row, 1, sem="release") + 1
    while arrived < SPLIT:
        arrived = tl.atomic_add(counts_ptr + row, 0, sem="acquire")
    parts = tl.arange(0, SPLIT_BLOCK)
    in_row = parts < SPLIT  # padding parts: a max of -inf and a sum of 0 change nothing
    # .cg reads L2, where the other programs' stores went, and not this SM's L1
    maxes = tl.load(
        max_ptr + row * SPLIT + parts, mask=in_row, other=-float("inf"), cache_modifier=".cg"
    )
    sums = tl.load(sum_ptr + row * SPLIT + parts, mask=in_row, other=0.0, cache_modifier=".cg")
    row_max = tl.max(maxes, axis=0)
    # each part's sum was taken against its own max: rescale it to the row's
    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)
    y = tl.exp(x - row_max) / row_sum
    out_ptrs = out_ptr + row.to(tl.int64) * stride_out_row + cols
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)

    # the row's last program to leave sets both counts back to 0, ready for the next launch
    if tl.atomic_add(counts_ptr + n_rows + row, 1) == SPLIT - 1:
        tl.store(counts_ptr + row, 0)
        tl.store(counts_ptr + n_rows + row, 0)


# The counts of softmax_split_kernel, by device, stream and row count: zeroed once, then left at
# 0 by each launch. A stream of their own, so that launches on two streams never share them.
ROW_COUNTS: dict[tuple, torch.Tensor] = {}


def row_counts(x: torch.Tensor) -> torch.Tensor:
    stream = torch.cuda.current_stream(x.device).cuda_stream if x.is_cuda else 0
    key = (x.device, stream, x.shape[0])
    if key not in ROW_COUNTS:
        ROW_COUNTS[key] = torch.zeros(2, x.shape[0], dtype=torch.int32, device=x.device)
    return ROW_COUNTS[key]


def launch_split(x: torch.Tensor, out: torch.Tensor) -> None:
    """softmax_split_kernel over x's rows into out (both checked by check_inputs)."""
    n_rows, n_cols = x.shape
    split = triton.cdiv(n_cols, PART)
    partials = torch.empty(2, n_rows, split, dtype=torch.float32, device=x.device)
    softmax_split_kernel[(n_rows * split,)](
        x,
        out,
        partials[0],
        partials[1],
        row_counts(x),
        n_rows,
        n_cols,
        x.stride(0),
        out.stride(0),
        SPLIT=split,
        SPLIT_BLOCK=triton.next_power_of_2(split),
        PART_SIZE=PART,
        # measured best at 8 parts of a 64K row: 4 warps in fp32, 8 in fp16
        num_warps=4 if x.element_size() == 4 else 8,
    )


def splits_rows(x: torch.Tensor) -> bool:
    """Whether softmax splits x's rows: long ones, on a GPU (see the module's docstring)."""
    return x.is_cuda and not triton.knobs.runtime.interpret and x.shape[1] > SPLIT_ABOVE


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(x, out)  # before splits_rows reads x, so that a bad x is named as such
    if not splits_rows(x):
        return softmax_whole_rows(x, out)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    launch_split(x, out)
    return out
