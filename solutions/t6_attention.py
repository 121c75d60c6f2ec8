"""t6 · Attention forward, one block of queries at a time (FlashAttention)

You will learn: attention as T5's online softmax over the keys, where each block of scores
comes from a tl.dot and the running sum becomes a running output; one program per block of
queries of one head, a loop over blocks of keys, two tl.dots in fp32; the causal mask, and the
blocks it lets a program skip; the log-sum-exp of each row, which a backward pass needs; never
storing the seq_q x seq_k scores.
Contract: q is (batch, heads, seq_q, head_dim), k and v are (batch, heads, seq_k, head_dim),
all fp16 or all bf16, each with a contiguous last dimension (any other strides, as in views of
a packed qkv tensor); head_dim from 16 to 128; causal=True needs seq_q == seq_k and lets query i
see keys 0..i; scale defaults to 1 / sqrt(head_dim). Returns (out, lse): out like q, and lse,
fp32 (batch, heads, seq_q), the natural log of each row's sum of exp(scale * q . k).
Lesson: content/t6_attention.md
"""

import math

import torch
import triton
import triton.language as tl

# Queries a program owns, and keys each step of its loop takes.
BLOCK_M = 64
BLOCK_N = 64
# exp(x) = exp2(x * log2(e)): the scores are scaled into base 2 once, and exp2 is what the
# GPU computes natively
LOG2_E = 1.4426950408889634


@triton.jit
def attention_kernel(
    q_ptr,
    k_ptr,
    v_ptr,
    out_ptr,
    lse_ptr,
    stride_qb,
    stride_qh,
    stride_qm,
    stride_kb,
    stride_kh,
    stride_kn,
    stride_vb,
    stride_vh,
    stride_vn,
    stride_ob,
    stride_oh,
    stride_om,
    stride_lb,
    stride_lh,
    n_heads,
    seq_q,
    seq_k,
    head_dim,
    qk_scale,  # the softmax scale times log2(e)
    CAUSAL: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,  # head_dim rounded up to a power of two, for tl.arange
):
    start_m = tl.program_id(axis=0) * BLOCK_M
    batch_head = tl.program_id(axis=1)
    batch = (batch_head // n_heads).to(tl.int64)
    head = (batch_head % n_heads).to(tl.int64)
    rows = start_m + tl.arange(0, BLOCK_M)
    dims = tl.arange(0, BLOCK_D)
    row_in = rows < seq_q
    dim_in = dims < head_dim

    q_head = q_ptr + batch * stride_qb + head * stride_qh
    k_head = k_ptr + batch * stride_kb + head * stride_kh
    v_head = v_ptr + batch * stride_vb + head * stride_vh
    # padding rows and dimensions load 0: a 0 dimension adds nothing to a dot product
    q = tl.load(
        q_head + rows[:, None] * stride_qm + dims[None, :],
        mask=row_in[:, None] & dim_in[None, :],
        other=0.0,
    )

    # T5's running max and sum, one per query row, in base 2; the running output is the sum
    # of p @ v under the same max
    running_max = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    running_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)

    # with the causal mask, keys past this block's last query are masked for every row:
    # stop there instead of computing scores only to throw them away
    end_n = tl.minimum(seq_k, start_m + BLOCK_M) if CAUSAL else seq_k
    for start_n in range(0, end_n, BLOCK_N):
        cols = start_n + tl.arange(0, BLOCK_N)
        col_in = cols < seq_k
        # k is loaded as its transpose, (BLOCK_D, BLOCK_N), so that q @ k^T is one tl.dot
        k_t = tl.load(
            k_head + cols[None, :] * stride_kn + dims[:, None],
            mask=dim_in[:, None] & col_in[None, :],
            other=0.0,
        )
        scores = tl.dot(q, k_t) * qk_scale
        # keys past seq_k (and, when causal, after the row's own query) get -inf: exp2 makes
        # them 0, and they never win the max
        visible = col_in[None, :]
        if CAUSAL:
            visible = visible & (cols[None, :] <= rows[:, None])
        scores = tl.where(visible, scores, -float("inf"))

        new_max = tl.maximum(running_max, tl.max(scores, axis=1))
        # what the sum and the output gathered under the old max, rescaled to the new one
        alpha = tl.math.exp2(running_max - new_max)
        p = tl.math.exp2(scores - new_max[:, None])
        running_sum = running_sum * alpha + tl.sum(p, axis=1)
        v = tl.load(
            v_head + cols[:, None] * stride_vn + dims[None, :],
            mask=col_in[:, None] & dim_in[None, :],
            other=0.0,
        )
        # p in v's dtype for the tensor cores; the products are summed in fp32
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        running_max = new_max

    out = acc / running_sum[:, None]
    out_head = out_ptr + batch * stride_ob + head * stride_oh
    tl.store(
        out_head + rows[:, None] * stride_om + dims[None, :],
        out.to(out_ptr.dtype.element_ty),
        mask=row_in[:, None] & dim_in[None, :],
    )
    # log(sum of exp(s)) = ln 2 * (max + log2(sum)), the max and the sum being in base 2
    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634
    tl.store(lse_ptr + batch * stride_lb + head * stride_lh + rows, lse, mask=row_in)


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    scale: float | None = None,
    out: torch.Tensor | None = None,
    lse: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    check_inputs(q, k, v, causal, out, lse)
    batch, n_heads, seq_q, head_dim = q.shape
    seq_k = k.shape[2]
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    if out is None:
        out = torch.empty(q.shape, dtype=q.dtype, device=q.device)
    if lse is None:
        lse = torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device)
    if out.numel() == 0:
        return out, lse
    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)
    attention_kernel[grid](
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
        n_heads,
        seq_q,
        seq_k,
        head_dim,
        scale * LOG2_E,
        CAUSAL=causal,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_D=max(16, triton.next_power_of_2(head_dim)),
    )
    return out, lse


def check_inputs(q, k, v, causal, out, lse) -> None:
    """Reject what the kernel cannot handle, with a message that says what was wrong."""
    tensors = {"q": q, "k": k, "v": v} | ({} if out is None else {"out": out})
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(
                f"{name} must be 4-D (batch, heads, seq, head_dim), got shape {tuple(t.shape)}"
            )
        if t.dtype not in (torch.float16, torch.bfloat16) or t.dtype != q.dtype:
            raise TypeError(f"{name} must be fp16 or bf16, as q is, got {t.dtype} (q: {q.dtype})")
        if t.device != q.device:
            raise ValueError(f"{name} is on {t.device}, q on {q.device}: put them on one device")
        if t.shape[-1] > 1 and t.stride(-1) != 1:
            raise ValueError(
                f"{name} must have a contiguous last dimension (stride 1), got strides "
                f"{t.stride()}: call .contiguous() first"
            )
    batch, n_heads, seq_q, head_dim = q.shape
    if not 16 <= head_dim <= 128:
        raise ValueError(f"head_dim must be from 16 to 128, got {head_dim}")
    if k.shape != v.shape or k.shape[:2] + k.shape[3:] != (batch, n_heads, head_dim):
        raise ValueError(
            f"k and v must be (batch, heads, seq_k, head_dim) with q's batch, heads and "
            f"head_dim: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
        )
    if batch * n_heads > 65535:
        raise ValueError(
            f"batch * heads must be at most 65535, the grid's limit along axis 1, got "
            f"{batch} * {n_heads}"
        )
    for name, t in tensors.items():
        # a row's offset inside one head is rows * stride in int32
        if t.shape[2] * t.stride(2) >= 2**31:
            raise ValueError(
                f"{name}'s rows of one head span {t.shape[2] * t.stride(2)} elements: at most "
                "2^31 - 1 fit the kernel's int32 offsets"
            )
    if causal and k.shape[2] != seq_q:
        raise ValueError(
            f"causal=True needs as many keys as queries, got seq_q {seq_q} and seq_k {k.shape[2]}"
        )
    if out is not None and out.shape != q.shape:
        raise ValueError(f"out must be shaped like q, {tuple(q.shape)}, got {tuple(out.shape)}")
    if lse is not None and (
        not isinstance(lse, torch.Tensor)
        or lse.shape != (batch, n_heads, seq_q)
        or lse.dtype != torch.float32
        or lse.device != q.device
        or (seq_q > 1 and lse.stride(-1) != 1)
    ):
        raise ValueError(
            f"lse must be an fp32 tensor of shape {(batch, n_heads, seq_q)} on {q.device} with "
            "a contiguous last dimension"
        )
