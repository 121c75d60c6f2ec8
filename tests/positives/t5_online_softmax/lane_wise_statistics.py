"""Correct, written differently: each lane keeps its own running max and sum over the blocks
(no reduction inside the loop), and the lanes are merged once at the end, the way the parts
are; one-dimensional grids, each program finding its row and part from its id."""

import torch
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def _merge(maxes, sums):
    # lanes (or parts) that saw only padding hold (-inf, 0): their weight must be 0, not NaN
    top = tl.max(maxes, axis=0)
    weights = tl.where(maxes == -float("inf"), 0.0, tl.exp(maxes - top))
    return top, tl.sum(sums * weights, axis=0)


@triton.jit
def stats_kernel(x_ptr, pairs_ptr, n_cols, x_row_stride, n_parts, part_len, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = pid // n_parts
    part = pid % n_parts
    base = x_ptr + row.to(tl.int64) * x_row_stride
    lo = part * part_len
    hi = tl.minimum(lo + part_len, n_cols)
    lane_max = tl.full([BLOCK], -float("inf"), tl.float32)
    lane_sum = tl.zeros([BLOCK], tl.float32)
    for i in range(lo, hi, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        v = tl.load(base + offs, mask=offs < hi, other=-float("inf")).to(tl.float32)
        grown = tl.maximum(lane_max, v)
        safe = tl.where(grown == -float("inf"), 0.0, grown)
        lane_sum = lane_sum * tl.exp(lane_max - safe) + tl.exp(v - safe)
        lane_max = grown
    top, total = _merge(lane_max, lane_sum)
    tl.store(pairs_ptr + pid * 2, top)
    tl.store(pairs_ptr + pid * 2 + 1, total)


@triton.jit
def write_kernel(
    x_ptr,
    y_ptr,
    pairs_ptr,
    n_cols,
    x_row_stride,
    y_row_stride,
    n_parts,
    part_len,
    PARTS_POW2: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    row = pid // n_parts
    part = pid % n_parts
    j = tl.arange(0, PARTS_POW2)
    first = row * n_parts
    maxes = tl.load(pairs_ptr + (first + j) * 2, mask=j < n_parts, other=-float("inf"))
    sums = tl.load(pairs_ptr + (first + j) * 2 + 1, mask=j < n_parts, other=0.0)
    top, total = _merge(maxes, sums)
    lo = part * part_len
    hi = tl.minimum(lo + part_len, n_cols)
    for i in range(lo, hi, BLOCK):
        offs = i + tl.arange(0, BLOCK)
        keep = offs < hi
        v = tl.load(x_ptr + row.to(tl.int64) * x_row_stride + offs, mask=keep).to(tl.float32)
        tl.store(y_ptr + row.to(tl.int64) * y_row_stride + offs, tl.exp(v - top) / total, mask=keep)


def softmax(x, out=None, *, parts=None):
    assert x.dim() == 2 and x.stride(1) == 1
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    n_rows, n_cols = x.shape
    if parts is None:
        parts = max(1, min(triton.cdiv(n_cols, 8 * BLOCK), 16))
    part_len = triton.cdiv(n_cols, parts)
    pairs = torch.empty(n_rows * parts, 2, dtype=torch.float32, device=x.device)
    grid = (n_rows * parts,)
    stats_kernel[grid](x, pairs, n_cols, x.stride(0), parts, part_len, BLOCK=BLOCK)
    write_kernel[grid](
        x,
        out,
        pairs,
        n_cols,
        x.stride(0),
        out.stride(0),
        parts,
        part_len,
        PARTS_POW2=triton.next_power_of_2(parts),
        BLOCK=BLOCK,
    )
    return out
