"""Correct, written differently: the reference with a stats buffer cached between calls (keyed by shape and device;
every entry is rewritten on each call), a store that relies on tl.store's implicit cast, and a
multiply by the reciprocal of the sum."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 4096
PROGRAMS = 1024
_STATS = {}


@triton.jit
def part_stats_kernel(
    x_ptr,
    max_ptr,
    sum_ptr,
    n_cols,
    stride_x_row,
    part_cols,
    PARTS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    part = tl.program_id(axis=1)
    row_start = x_ptr + row.to(tl.int64) * stride_x_row
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    running_max = -float("inf")
    running_sum = 0.0
    for block_start in range(start, end, BLOCK_SIZE):
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_start + cols, mask=cols < end, other=-float("inf"))
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        shift = tl.where(new_max == float("-inf"), 0.0, new_max)  # masked -inf alone: no NaN
        running_sum = running_sum * tl.exp(running_max - shift) + tl.sum(tl.exp(x - shift), axis=0)
        running_max = new_max
    tl.store(max_ptr + row * PARTS + part, running_max)
    tl.store(sum_ptr + row * PARTS + part, running_sum)


@triton.jit
def normalize_kernel(
    x_ptr,
    out_ptr,
    max_ptr,
    sum_ptr,
    n_cols,
    stride_x_row,
    stride_out_row,
    part_cols,
    PARTS: tl.constexpr,
    PARTS_BLOCK: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    part = tl.program_id(axis=1)
    parts = tl.arange(0, PARTS_BLOCK)
    in_row = parts < PARTS
    maxes = tl.load(max_ptr + row * PARTS + parts, mask=in_row, other=-float("inf"))
    sums = tl.load(sum_ptr + row * PARTS + parts, mask=in_row, other=0.0)
    row_max = tl.max(maxes, axis=0)
    inv = 1.0 / tl.sum(sums * tl.exp(maxes - row_max), axis=0)
    x_row = x_ptr + row.to(tl.int64) * stride_x_row
    out_row = out_ptr + row.to(tl.int64) * stride_out_row
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    for block_start in range(start, end, BLOCK_SIZE):
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        mask = cols < end
        x = tl.load(x_row + cols, mask=mask)
        tl.store(out_row + cols, tl.exp(x - row_max) * inv, mask=mask)


def softmax(x, out=None, *, parts=None):
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return out
    if parts is None:
        parts = max(1, min(triton.cdiv(PROGRAMS, n_rows), triton.cdiv(n_cols, BLOCK_SIZE)))
    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK_SIZE) * BLOCK_SIZE
    key = (n_rows, parts, x.device)
    stats = _STATS.get(key)
    if stats is None:
        stats = _STATS[key] = torch.empty(2, n_rows, parts, dtype=torch.float32, device=x.device)
    grid = (n_rows, parts)
    part_stats_kernel[grid](
        x, stats[0], stats[1], n_cols, x.stride(0), part_cols, PARTS=parts, BLOCK_SIZE=BLOCK_SIZE
    )
    normalize_kernel[grid](
        x,
        out,
        stats[0],
        stats[1],
        n_cols,
        x.stride(0),
        out.stride(0),
        part_cols,
        PARTS=parts,
        PARTS_BLOCK=triton.next_power_of_2(parts),
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return out
