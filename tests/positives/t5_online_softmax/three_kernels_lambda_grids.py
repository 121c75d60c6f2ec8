"""Correct, written differently: three kernels. Parts reduce to pairs; a small combine kernel (one program a row)
writes the row's (max, sum) once; the normalize kernel reads that. Grids are lambdas."""

import torch
import triton
import triton.language as tl


@triton.jit
def pairs_kernel(x_ptr, m_ptr, s_ptr, n_cols, sx, part_cols, n_parts, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    p = tl.program_id(1)
    base = x_ptr + r.to(tl.int64) * sx
    lo = p * part_cols
    hi = tl.minimum(lo + part_cols, n_cols)
    m = tl.full((), float("-inf"), tl.float32)
    s = tl.full((), 0.0, tl.float32)
    for b in tl.range(lo, hi, BLOCK):
        c = b + tl.arange(0, BLOCK)
        v = tl.load(base + c, mask=c < hi, other=float("-inf")).to(tl.float32)
        mn = tl.maximum(m, tl.max(v, 0))
        c = tl.where(mn == float("-inf"), 0.0, mn)  # a block of masked -inf: no NaN
        s = s * tl.exp(m - c) + tl.sum(tl.exp(v - c), 0)
        m = mn
    tl.store(m_ptr + r * n_parts + p, m)
    tl.store(s_ptr + r * n_parts + p, s)


@triton.jit
def combine_kernel(m_ptr, s_ptr, row_ptr, n_parts, PB: tl.constexpr):
    r = tl.program_id(0)
    k = tl.arange(0, PB)
    ms = tl.load(m_ptr + r * n_parts + k, mask=k < n_parts, other=float("-inf"))
    ss = tl.load(s_ptr + r * n_parts + k, mask=k < n_parts, other=0.0)
    top = tl.max(ms, 0)
    w = tl.where(ms == float("-inf"), 0.0, tl.exp(ms - top))
    tl.store(row_ptr + 2 * r, top)
    tl.store(row_ptr + 2 * r + 1, tl.sum(ss * w, 0))


@triton.jit
def write_kernel(x_ptr, y_ptr, row_ptr, n_cols, sx, sy, part_cols, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    p = tl.program_id(1)
    top = tl.load(row_ptr + 2 * r)
    inv = 1.0 / tl.load(row_ptr + 2 * r + 1)
    lo = p * part_cols
    hi = tl.minimum(lo + part_cols, n_cols)
    xb = x_ptr + r.to(tl.int64) * sx
    yb = y_ptr + r.to(tl.int64) * sy
    for b in tl.range(lo, hi, BLOCK):
        c = b + tl.arange(0, BLOCK)
        v = tl.load(xb + c, mask=c < hi, other=0.0).to(tl.float32)
        tl.store(yb + c, (tl.exp(v - top) * inv).to(y_ptr.dtype.element_ty), mask=c < hi)


def softmax(x, out=None, *, parts=None):
    if out is None:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return out
    BLOCK = 2048
    if parts is None:
        parts = max(1, min(triton.cdiv(512, n_rows), triton.cdiv(n_cols, 8 * BLOCK)))
    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK) * BLOCK
    m = torch.empty((n_rows, parts), dtype=torch.float32, device=x.device)
    s = torch.empty_like(m)
    row = torch.empty((n_rows, 2), dtype=torch.float32, device=x.device)
    grid = lambda meta: (n_rows, parts)
    pairs_kernel[grid](x, m, s, n_cols, x.stride(0), part_cols, parts, BLOCK=BLOCK)
    combine_kernel[(n_rows,)](m, s, row, parts, PB=triton.next_power_of_2(parts))
    write_kernel[grid](x, out, row, n_cols, x.stride(0), out.stride(0), part_cols, BLOCK=BLOCK)
    return out
