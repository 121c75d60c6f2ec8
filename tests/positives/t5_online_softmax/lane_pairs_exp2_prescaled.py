"""Correct, written differently: x scaled by log2(e) as it is loaded, before any max is taken
(FlashAttention's habit), each lane keeping its own running (max, sum) pair, and the pairs
merged by one tl.reduce over tuples, in exp2, with a merge that lets a side of no values (max
-inf) add nothing. On a GPU the compiler fuses the scaling into the subtraction of the max (one
FMA), whose unrounded product can miss the lane's own rounded max by half an ulp: 2^96 at
-2^120, and exp2(2^96) is inf. The rows far below -1e30 of the grader of commit 2459ce8 were not
powers of two, so on an H100 this file got NaN there (90/100) where the CPU gave 100; those rows
are powers of two now (drills/judge/testing/rows.py), and the file gets 100/100 on an H100 too.
That the FMA is the cause is a reading of the numbers, not of the compiled code."""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _merge(m1, l1, m2, l2):
    m = tl.maximum(m1, m2)
    # a side with no values yet (m = -inf) adds nothing
    s1 = tl.where(m1 == float("-inf"), 0.0, l1 * tl.math.exp2(m1 - m))
    s2 = tl.where(m2 == float("-inf"), 0.0, l2 * tl.math.exp2(m2 - m))
    return m, s1 + s2


@triton.jit
def _stats(X, M, L, n_cols, sx, cols_per_part, PARTS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    part = tl.program_id(1)
    start = part * cols_per_part
    end = tl.minimum(start + cols_per_part, n_cols)
    x_row = X + row.to(tl.int64) * sx
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK], tl.float32)
    for c in tl.range(start, end, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        v = tl.load(x_row + offs, mask=offs < end, other=float("-inf")).to(tl.float32) * LOG2E
        m, l = _merge(m, l, v, tl.where(v == float("-inf"), 0.0, 1.0))
    m_all, l_all = tl.reduce((m, l), 0, _merge)
    tl.store(M + row * PARTS + part, m_all)
    tl.store(L + row * PARTS + part, l_all)


@triton.jit
def _normalize(
    X,
    Y,
    M,
    L,
    n_cols,
    sx,
    sy,
    cols_per_part,
    PARTS: tl.constexpr,
    P2: tl.constexpr,
    BLOCK: tl.constexpr,
):
    row = tl.program_id(0)
    part = tl.program_id(1)
    p = tl.arange(0, P2)
    pm = tl.load(M + row * PARTS + p, mask=p < PARTS, other=float("-inf"))
    pl = tl.load(L + row * PARTS + p, mask=p < PARTS, other=0.0)
    m, l = tl.reduce((pm, pl), 0, _merge)
    start = part * cols_per_part
    end = tl.minimum(start + cols_per_part, n_cols)
    for c in tl.range(start, end, BLOCK):
        offs = c + tl.arange(0, BLOCK)
        msk = offs < end
        v = tl.load(X + row.to(tl.int64) * sx + offs, mask=msk, other=float("-inf")).to(tl.float32)
        y = tl.math.exp2(v * LOG2E - m) / l
        tl.store(Y + row.to(tl.int64) * sy + offs, y.to(Y.dtype.element_ty), mask=msk)


def softmax(x, out=None, *, parts=None):
    n_rows, n_cols = x.shape
    if out is None:
        out = torch.empty_like(x)
    if n_rows == 0 or n_cols == 0:
        return out
    BLOCK = 1024
    if parts is None:
        parts = max(1, min(triton.cdiv(512, n_rows), triton.cdiv(n_cols, BLOCK)))
    cols_per_part = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK) * BLOCK
    m = torch.empty((n_rows, parts), device=x.device, dtype=torch.float32)
    l = torch.empty_like(m)
    _stats[(n_rows, parts)](x, m, l, n_cols, x.stride(0), cols_per_part, PARTS=parts, BLOCK=BLOCK)
    _normalize[(n_rows, parts)](
        x,
        out,
        m,
        l,
        n_cols,
        x.stride(0),
        out.stride(0),
        cols_per_part,
        PARTS=parts,
        P2=triton.next_power_of_2(parts),
        BLOCK=BLOCK,
    )
    return out
