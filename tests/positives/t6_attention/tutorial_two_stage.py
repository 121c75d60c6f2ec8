"""Correct, written differently: Triton tutorial 06's shape. The grid is (batch * heads, query
blocks), k is loaded as (BLOCK_N, D) and transposed with tl.trans, and the causal loop runs in
two stages: the blocks left of the diagonal without a mask, then the diagonal block with it.
The log-sum-exp is kept in base 2 until the store."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _inner(
    acc,
    l_i,
    m_i,
    q,
    k_base,
    v_base,
    skn,
    svn,
    offs_m,
    offs_d,
    lo,
    hi,
    N_CTX_K,
    D,
    sm_scale,
    MASKED: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    for start_n in tl.range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        kv_mask = (offs_n[:, None] < N_CTX_K) & (offs_d[None, :] < D)
        k = tl.load(k_base + offs_n[:, None] * skn + offs_d[None, :], mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        keep = offs_n[None, :] < N_CTX_K
        if MASKED:
            keep = keep & (offs_m[:, None] >= offs_n[None, :])
        qk = tl.where(keep, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + offs_n[:, None] * svn + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None]
        acc += tl.dot(p.to(tl.float16) if v.dtype == tl.float16 else p.to(tl.bfloat16), v)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(
    Q,
    K,
    V,
    O,
    M,
    sqz,
    sqh,
    sqm,
    skz,
    skh,
    skn,
    svz,
    svh,
    svn,
    soz,
    soh,
    som,
    smz,
    smh,
    H,
    N_CTX_Q,
    N_CTX_K,
    D,
    sm_scale,
    CAUSAL: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    HEAD: tl.constexpr,
):
    off_hz = tl.program_id(0)
    start_m = tl.program_id(1)
    off_z = (off_hz // H).to(tl.int64)
    off_h = (off_hz % H).to(tl.int64)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD)
    q_mask = (offs_m[:, None] < N_CTX_Q) & (offs_d[None, :] < D)
    q = tl.load(
        Q + off_z * sqz + off_h * sqh + offs_m[:, None] * sqm + offs_d[None, :],
        mask=q_mask,
        other=0.0,
    )
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD], dtype=tl.float32)
    k_base = K + off_z * skz + off_h * skh
    v_base = V + off_z * svz + off_h * svh
    if CAUSAL:
        # stage 1: whole blocks left of this program's first query need no mask
        acc, l_i, m_i = _inner(
            acc,
            l_i,
            m_i,
            q,
            k_base,
            v_base,
            skn,
            svn,
            offs_m,
            offs_d,
            0,
            start_m * BLOCK_M,
            N_CTX_K,
            D,
            sm_scale,
            False,
            BLOCK_N,
        )
        # stage 2: the diagonal block, masked
        acc, l_i, m_i = _inner(
            acc,
            l_i,
            m_i,
            q,
            k_base,
            v_base,
            skn,
            svn,
            offs_m,
            offs_d,
            start_m * BLOCK_M,
            tl.minimum((start_m + 1) * BLOCK_M, N_CTX_K),
            N_CTX_K,
            D,
            sm_scale,
            True,
            BLOCK_N,
        )
    else:
        acc, l_i, m_i = _inner(
            acc,
            l_i,
            m_i,
            q,
            k_base,
            v_base,
            skn,
            svn,
            offs_m,
            offs_d,
            0,
            N_CTX_K,
            N_CTX_K,
            D,
            sm_scale,
            False,
            BLOCK_N,
        )
    m_i += tl.math.log2(l_i)
    acc = acc / l_i[:, None]
    tl.store(
        M + off_z * smz + off_h * smh + offs_m, m_i * 0.6931471805599453, mask=offs_m < N_CTX_Q
    )
    tl.store(
        O + off_z * soz + off_h * soh + offs_m[:, None] * som + offs_d[None, :],
        acc.to(O.dtype.element_ty),
        mask=q_mask,
    )


def attention(q, k, v, causal=False, scale=None, out=None, lse=None):
    Z, H, N_Q, D = q.shape
    N_K = k.shape[2]
    sm_scale = (1.0 / math.sqrt(D) if scale is None else scale) * 1.44269504
    if out is None:
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
    if lse is None:
        lse = torch.empty((Z, H, N_Q), device=q.device, dtype=torch.float32)
    BLOCK_M, BLOCK_N = 32, 32  # BLOCK_N divides BLOCK_M: stage 2 is one block
    grid = (Z * H, triton.cdiv(N_Q, BLOCK_M))
    _attn_fwd[grid](
        q,
        k,
        v,
        out,
        lse,
        *q.stride()[:3],
        *k.stride()[:3],
        *v.stride()[:3],
        *out.stride()[:3],
        lse.stride(0),
        lse.stride(1),
        H,
        N_Q,
        N_K,
        D,
        sm_scale,
        CAUSAL=causal,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        HEAD=max(16, triton.next_power_of_2(D)),
        num_warps=4,
        num_stages=2,
    )
    return out, lse
