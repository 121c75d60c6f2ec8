"""Correct, written differently: one program per (batch, head), walking every block of its
queries in an outer loop and every block of keys in an inner one; the scale is folded into q
in fp32 before the first dot."""

import torch
import triton
import triton.language as tl


@triton.jit
def head_kernel(
    Q,
    K,
    V,
    Out,
    Lse,
    sq0,
    sq1,
    sq2,
    sk0,
    sk1,
    sk2,
    sv0,
    sv1,
    sv2,
    so0,
    so1,
    so2,
    sl0,
    sl1,
    n_heads,
    seq_q,
    seq_k,
    head_dim,
    scale,
    causal: tl.constexpr,
    BLOCK: tl.constexpr,
    DIM: tl.constexpr,
):
    bh = tl.program_id(0)
    b = bh // n_heads
    h = bh % n_heads
    q0 = Q + b.to(tl.int64) * sq0 + h * sq1
    k0 = K + b.to(tl.int64) * sk0 + h * sk1
    v0 = V + b.to(tl.int64) * sv0 + h * sv1
    o0 = Out + b.to(tl.int64) * so0 + h * so1
    l0 = Lse + b.to(tl.int64) * sl0 + h * sl1
    dim = tl.arange(0, DIM)
    for first in range(0, seq_q, BLOCK):
        rows = first + tl.arange(0, BLOCK)
        qmask = (rows[:, None] < seq_q) & (dim[None, :] < head_dim)
        q = tl.load(q0 + rows[:, None] * sq2 + dim[None, :], mask=qmask, other=0.0)
        q = (q.to(tl.float32) * scale).to(q.dtype)
        mx = tl.full([BLOCK], float("-inf"), tl.float32)
        sm = tl.zeros([BLOCK], tl.float32)
        acc = tl.zeros([BLOCK, DIM], tl.float32)
        last = tl.minimum(seq_k, first + BLOCK) if causal else seq_k
        for kb in range(0, last, BLOCK):
            cols = kb + tl.arange(0, BLOCK)
            kmask = (cols[:, None] < seq_k) & (dim[None, :] < head_dim)
            k = tl.load(k0 + cols[:, None] * sk2 + dim[None, :], mask=kmask, other=0.0)
            sc = tl.dot(q, tl.trans(k))
            vis = cols[None, :] < seq_k
            if causal:
                vis = vis & (cols[None, :] <= rows[:, None])
            sc = tl.where(vis, sc, float("-inf"))
            new = tl.maximum(mx, tl.max(sc, 1))
            p = tl.exp(sc - new[:, None])
            a = tl.exp(mx - new)
            sm = sm * a + tl.sum(p, 1)
            v = tl.load(v0 + cols[:, None] * sv2 + dim[None, :], mask=kmask, other=0.0)
            acc = acc * a[:, None] + tl.dot(p.to(v.dtype), v)
            mx = new
        tl.store(
            o0 + rows[:, None] * so2 + dim[None, :],
            (acc / sm[:, None]).to(Out.dtype.element_ty),
            mask=qmask,
        )
        tl.store(l0 + rows, mx + tl.log(sm), mask=rows < seq_q)


def attention(q, k, v, causal=False, scale=None, out=None, lse=None):
    batch, heads, seq_q, head_dim = q.shape
    if out is None:
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
    if lse is None:
        lse = q.new_empty((batch, heads, seq_q), dtype=torch.float32)
    scale = head_dim**-0.5 if scale is None else scale
    head_kernel[(batch * heads,)](
        q,
        k,
        v,
        out,
        lse,
        *q.stride()[:3],
        *k.stride()[:3],
        *v.stride()[:3],
        *out.stride()[:3],
        *lse.stride()[:2],
        heads,
        seq_q,
        k.shape[2],
        head_dim,
        scale,
        causal,
        BLOCK=32,
        DIM=max(16, triton.next_power_of_2(head_dim)),
    )
    return out, lse
