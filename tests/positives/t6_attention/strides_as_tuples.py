"""Correct, written differently: one program per (batch, head), as in one_program_per_head.py,
with each tensor's strides passed as one tuple argument (triton 3.3 and later) and indexed in
the kernel."""

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
    stride_q,
    stride_k,
    stride_v,
    stride_o,
    stride_l,
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
    q0 = Q + b.to(tl.int64) * stride_q[0] + h * stride_q[1]
    k0 = K + b.to(tl.int64) * stride_k[0] + h * stride_k[1]
    v0 = V + b.to(tl.int64) * stride_v[0] + h * stride_v[1]
    o0 = Out + b.to(tl.int64) * stride_o[0] + h * stride_o[1]
    l0 = Lse + b.to(tl.int64) * stride_l[0] + h * stride_l[1]
    dim = tl.arange(0, DIM)
    for first in range(0, seq_q, BLOCK):
        rows = first + tl.arange(0, BLOCK)
        qmask = (rows[:, None] < seq_q) & (dim[None, :] < head_dim)
        q = tl.load(q0 + rows[:, None] * stride_q[2] + dim[None, :], mask=qmask, other=0.0)
        q = (q.to(tl.float32) * scale).to(q.dtype)
        mx = tl.full([BLOCK], float("-inf"), tl.float32)
        sm = tl.zeros([BLOCK], tl.float32)
        acc = tl.zeros([BLOCK, DIM], tl.float32)
        last = tl.minimum(seq_k, first + BLOCK) if causal else seq_k
        for kb in range(0, last, BLOCK):
            cols = kb + tl.arange(0, BLOCK)
            kmask = (cols[:, None] < seq_k) & (dim[None, :] < head_dim)
            k = tl.load(k0 + cols[:, None] * stride_k[2] + dim[None, :], mask=kmask, other=0.0)
            sc = tl.dot(q, tl.trans(k))
            vis = cols[None, :] < seq_k
            if causal:
                vis = vis & (cols[None, :] <= rows[:, None])
            sc = tl.where(vis, sc, float("-inf"))
            new = tl.maximum(mx, tl.max(sc, 1))
            p = tl.exp(sc - new[:, None])
            a = tl.exp(mx - new)
            sm = sm * a + tl.sum(p, 1)
            v = tl.load(v0 + cols[:, None] * stride_v[2] + dim[None, :], mask=kmask, other=0.0)
            acc = acc * a[:, None] + tl.dot(p.to(v.dtype), v)
            mx = new
        tl.store(
            o0 + rows[:, None] * stride_o[2] + dim[None, :],
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
        q.stride(),
        k.stride(),
        v.stride(),
        out.stride(),
        lse.stride(),
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
