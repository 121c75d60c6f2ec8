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

from drills import NotStarted

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
    # TODO(t6.1): this program's block of queries (axis 0: start_m = pid * BLOCK_M) and its
    #             batch and head (axis 1: batch_head // n_heads and batch_head % n_heads)
    # TODO(t6.2): load q's block, (BLOCK_M, BLOCK_D), masked to rows < seq_q and dims <
    #             head_dim, padding with 0 (row r of a head starts at r * stride_qm)
    # TODO(t6.3): a running max (-inf), a running sum (0) per row, in fp32, and an fp32
    #             accumulator (BLOCK_M, BLOCK_D) for the output
    # TODO(t6.4): loop over the keys in blocks of BLOCK_N (when CAUSAL, only up to this
    #             block's last query): load k's block as its transpose, (BLOCK_D, BLOCK_N);
    #             scores = tl.dot(q, k_t) * qk_scale; -inf where a key is past seq_k (and, when
    #             CAUSAL, where the key comes after the row's query)
    # TODO(t6.5): the online softmax, in base 2: the new max, alpha = exp2(old max - new max),
    #             p = exp2(scores - new max); rescale the running sum and the accumulator by
    #             alpha, add p's row sums, and add tl.dot(p in v's dtype, v's block)
    # TODO(t6.6): store acc / running sum into out, masked like q; store each row's
    #             log-sum-exp, (max + log2(sum)) / log2(e), into lse (fp32)
    pass


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool = False,
    scale: float | None = None,
    out: torch.Tensor | None = None,
    lse: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    raise NotStarted("t6_attention")  # TODO(t6.0): delete this line when you start
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
    # TODO(t6.7): the grid: a program for each block of BLOCK_M queries of each (batch, head)
    # TODO(t6.8): launch attention_kernel with every tensor's strides (q, k, v and out: batch,
    #             head and seq; lse: batch and head), scale * LOG2_E, and BLOCK_D, head_dim
    #             rounded up to a power of two (at least 16, what tl.dot needs)
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
