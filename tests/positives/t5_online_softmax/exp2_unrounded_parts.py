"""Correct, written differently: base-2 exponentials (x scaled by log2(e) after subtracting the max), parts that
are not whole blocks (part_cols = cdiv(n_cols, parts), masks at the part's end), int64 indices
everywhere."""

import torch
import triton
import triton.language as tl

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def stats(x_ptr, mx_ptr, sm_ptr, n_cols, sx, part_cols, P, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1).to(tl.int64)
    lo = p * part_cols
    hi = tl.minimum(lo + part_cols, n_cols)
    m = -float("inf")
    s = 0.0
    for b in range(lo, hi, BLOCK):
        c = b + tl.arange(0, BLOCK).to(tl.int64)
        v = tl.load(x_ptr + r * sx + c, mask=c < hi, other=-float("inf")).to(tl.float32)
        mn = tl.maximum(m, tl.max(v, 0))
        c = tl.where(mn == float("-inf"), 0.0, mn)  # a block of masked -inf: no NaN
        s = s * tl.exp2((m - c) * LOG2E) + tl.sum(tl.exp2((v - c) * LOG2E), 0)
        m = mn
    tl.store(mx_ptr + r * P + p, m)
    tl.store(sm_ptr + r * P + p, s)


@triton.jit
def norm(
    x_ptr,
    y_ptr,
    mx_ptr,
    sm_ptr,
    n_cols,
    sx,
    sy,
    part_cols,
    P,
    PB: tl.constexpr,
    BLOCK: tl.constexpr,
):
    r = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1).to(tl.int64)
    k = tl.arange(0, PB)
    ms = tl.load(mx_ptr + r * P + k, mask=k < P, other=-float("inf"))
    ss = tl.load(sm_ptr + r * P + k, mask=k < P, other=0.0)
    top = tl.max(ms, 0)
    total = tl.sum(ss * tl.exp2((ms - top) * LOG2E), 0)
    lo = p * part_cols
    hi = tl.minimum(lo + part_cols, n_cols)
    for b in range(lo, hi, BLOCK):
        c = b + tl.arange(0, BLOCK).to(tl.int64)
        v = tl.load(x_ptr + r * sx + c, mask=c < hi).to(tl.float32)
        y = tl.exp2((v - top) * LOG2E) / total
        tl.store(y_ptr + r * sy + c, y.to(y_ptr.dtype.element_ty), mask=c < hi)


def softmax(x, out=None, *, parts=None):
    n_rows, n_cols = x.shape
    out = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device) if out is None else out
    if x.numel() == 0:
        return out
    parts = parts if parts is not None else max(1, min(64, triton.cdiv(n_cols, 65536)))
    part_cols = triton.cdiv(n_cols, parts)
    st = torch.empty((2, n_rows * parts), dtype=torch.float32, device=x.device)
    g = (n_rows, parts)
    stats[g](x, st[0], st[1], n_cols, x.stride(0), part_cols, parts, BLOCK=1024)
    norm[g](
        x,
        out,
        st[0],
        st[1],
        n_cols,
        x.stride(0),
        out.stride(0),
        part_cols,
        parts,
        PB=triton.next_power_of_2(parts),
        BLOCK=1024,
    )
    return out
