"""Correct, written differently: a 3-D grid (query blocks, heads, batch), natural exp and
log throughout, the scale applied to the fp32 scores, keys in blocks of 16, and the causal
mask applied to every block (no blocks skipped)."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def fwd(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    l_ptr,
    q_s0,
    q_s1,
    q_s2,
    k_s0,
    k_s1,
    k_s2,
    v_s0,
    v_s1,
    v_s2,
    o_s0,
    o_s1,
    o_s2,
    l_s0,
    l_s1,
    Lq,
    Lk,
    D,
    scale,
    IS_CAUSAL: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BD: tl.constexpr,
):
    pm = tl.program_id(0)
    h = tl.program_id(1).to(tl.int64)
    b = tl.program_id(2).to(tl.int64)
    i = pm * BM + tl.arange(0, BM)
    d = tl.arange(0, BD)
    qm = (i[:, None] < Lq) & (d[None, :] < D)
    q = tl.load(q_ptr + b * q_s0 + h * q_s1 + i[:, None] * q_s2 + d[None, :], mask=qm, other=0.0)
    m = tl.full((BM,), float("-inf"), tl.float32)
    s = tl.zeros((BM,), tl.float32)
    o = tl.zeros((BM, BD), tl.float32)
    for j0 in range(0, Lk, BN):
        j = j0 + tl.arange(0, BN)
        km = (j[None, :] < Lk) & (d[:, None] < D)
        kt = tl.load(
            k_ptr + b * k_s0 + h * k_s1 + j[None, :] * k_s2 + d[:, None], mask=km, other=0.0
        )
        x = tl.dot(q, kt).to(tl.float32) * scale
        ok = j[None, :] < Lk
        if IS_CAUSAL:
            ok = ok & (j[None, :] <= i[:, None])
        x = tl.where(ok, x, float("-inf"))
        m2 = tl.maximum(m, tl.max(x, axis=1))
        # a row of this block may have no key yet (causal, a later block): keep it at -inf
        c = tl.where(m2 == float("-inf"), 0.0, tl.exp(m - m2))
        e = tl.where(ok, tl.exp(x - m2[:, None]), 0.0)
        s = s * c + tl.sum(e, axis=1)
        vm = (j[:, None] < Lk) & (d[None, :] < D)
        vv = tl.load(
            v_ptr + b * v_s0 + h * v_s1 + j[:, None] * v_s2 + d[None, :], mask=vm, other=0.0
        )
        o = o * c[:, None] + tl.dot(e.to(vv.dtype), vv)
        m = m2
    tl.store(
        o_ptr + b * o_s0 + h * o_s1 + i[:, None] * o_s2 + d[None, :],
        (o / s[:, None]).to(o_ptr.dtype.element_ty),
        mask=qm,
    )
    tl.store(l_ptr + b * l_s0 + h * l_s1 + i, m + tl.log(s), mask=i < Lq)


def attention(q, k, v, causal=False, scale=None, out=None, lse=None):
    B, H, Lq, D = q.shape
    Lk = k.shape[-2]
    scale = scale if scale is not None else D**-0.5
    out = torch.empty(B, H, Lq, D, dtype=q.dtype, device=q.device) if out is None else out
    lse = torch.empty(B, H, Lq, dtype=torch.float32, device=q.device) if lse is None else lse
    BD = max(16, 1 << math.ceil(math.log2(D)))
    fwd[(triton.cdiv(Lq, 32), H, B)](
        q,
        k,
        v,
        out,
        lse,
        q.stride(0),
        q.stride(1),
        q.stride(2),
        k.stride(0),
        k.stride(1),
        k.stride(2),
        v.stride(0),
        v.stride(1),
        v.stride(2),
        out.stride(0),
        out.stride(1),
        out.stride(2),
        lse.stride(0),
        lse.stride(1),
        Lq,
        Lk,
        D,
        scale,
        IS_CAUSAL=causal,
        BM=32,
        BN=16,
        BD=BD,
    )
    return out, lse
