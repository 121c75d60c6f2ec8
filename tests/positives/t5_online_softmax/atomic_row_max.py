"""Correct, written differently: the parts' maxes merged with tl.atomic_max into a buffer of
-inf made anew on every call."""

import torch
import triton
import triton.language as tl

BLOCK = 4096
_ROW_MAX = {}


@triton.jit
def stats_kernel(
    x_ptr, pair_ptr, rowmax_ptr, n_cols, sx, part_cols, PARTS: tl.constexpr, BLOCK: tl.constexpr
):
    row = tl.program_id(0)
    part = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * sx
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    m = -float("inf")
    s = 0.0
    for b in range(start, end, BLOCK):
        cols = b + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < end, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        c = tl.where(m_new == float("-inf"), 0.0, m_new)  # a block of masked -inf: no NaN
        s = s * tl.exp(m - c) + tl.sum(tl.exp(x - c), 0)
        m = m_new
    tl.store(pair_ptr + (row * PARTS + part) * 2, m)
    tl.store(pair_ptr + (row * PARTS + part) * 2 + 1, s)
    tl.atomic_max(rowmax_ptr + row, m)


@triton.jit
def normalize_kernel(
    x_ptr,
    out_ptr,
    pair_ptr,
    rowmax_ptr,
    n_cols,
    sx,
    so,
    part_cols,
    PARTS: tl.constexpr,
    PB: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    part = tl.program_id(1)
    M = tl.load(rowmax_ptr + row)
    k = tl.arange(0, PB)
    ms = tl.load(pair_ptr + (row * PARTS + k) * 2, mask=k < PARTS, other=-float("inf"))
    ss = tl.load(pair_ptr + (row * PARTS + k) * 2 + 1, mask=k < PARTS, other=0.0)
    total = tl.sum(ss * tl.exp(ms - M), 0)
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    for b in range(start, end, BLOCK):
        cols = b + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row.to(tl.int64) * sx + cols, mask=cols < end).to(tl.float32)
        tl.store(
            out_ptr + row.to(tl.int64) * so + cols,
            (tl.exp(x - M) / total).to(out_ptr.dtype.element_ty),
            mask=cols < end,
        )


def softmax(x, out=None, *, parts=None):
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return out
    if parts is None:
        parts = max(1, min(triton.cdiv(1024, n_rows), triton.cdiv(n_cols, BLOCK)))
    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK) * BLOCK
    pairs = torch.empty(n_rows * parts * 2, dtype=torch.float32, device=x.device)
    key = (n_rows, x.device)
    if True:  # fresh every call
        _ROW_MAX[key] = torch.full((n_rows,), -float("inf"), dtype=torch.float32, device=x.device)
    row_max = _ROW_MAX[key]
    grid = (n_rows, parts)
    stats_kernel[grid](x, pairs, row_max, n_cols, x.stride(0), part_cols, PARTS=parts, BLOCK=BLOCK)
    normalize_kernel[grid](
        x,
        out,
        pairs,
        row_max,
        n_cols,
        x.stride(0),
        out.stride(0),
        part_cols,
        PARTS=parts,
        PB=triton.next_power_of_2(parts),
        BLOCK=BLOCK,
    )
    return out
