"""Correct, written differently: in the style of SGLang's and vLLM's split-KV decode attention
(decode_attention.py, whose first stage stores one log-sum-exp per split and whose second merges
them): each part reduces its columns to one number, lse = max + log(sum), in an fp32 buffer
[rows, NUM_KV_SPLITS]; the merge walks the splits over a constexpr count (tl.static_range),
skips an empty split as stage 2 does (and, here, a split of -inf alone), and keeps e_max and
e_sum with old_scale = exp(e_max - n_e_max); the write pass is exp(x - the row's lse). Far below
-1e30, max + log(sum) rounds back to the max: the judge's rows there are one-hot, whose sum is 1,
so that the padding they are for is what they test."""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
PROGRAMS = 1024
# SGLang's max_kv_splits: how many splits a row gets at most when the caller leaves it open
MAX_KV_SPLITS = 32


@triton.jit
def _fwd_kernel_stage1(
    X,
    Mid_Lse,
    stride_x_row,
    stride_mid_row,
    n_cols,
    kv_len_per_split,
    BLOCK_N: tl.constexpr,
):
    cur_batch = tl.program_id(0).to(tl.int64)
    split_kv_id = tl.program_id(1)

    split_kv_start = kv_len_per_split * split_kv_id
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, n_cols)

    e_max = -float("inf")
    e_sum = 0.0
    for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        qk = tl.load(
            X + cur_batch * stride_x_row + offs_n,
            mask=offs_n < split_kv_end,
            other=float("-inf"),
        ).to(tl.float32)
        n_e_max = tl.maximum(tl.max(qk, 0), e_max)
        # -inf - -inf would be NaN while the split has seen only masked logits
        safe_max = tl.where(n_e_max == float("-inf"), 0.0, n_e_max)
        re_scale = tl.exp(e_max - safe_max)
        p = tl.exp(qk - safe_max)
        e_sum = e_sum * re_scale + tl.sum(p, 0)
        e_max = n_e_max

    # log(0) = -inf for a split that holds nothing (or only -inf)
    tl.store(Mid_Lse + cur_batch * stride_mid_row + split_kv_id, e_max + tl.log(e_sum))


@triton.jit
def _fwd_kernel_stage2(
    X,
    Mid_Lse,
    O,
    stride_x_row,
    stride_mid_row,
    stride_o_row,
    n_cols,
    kv_len_per_split,
    NUM_KV_SPLITS: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    cur_batch = tl.program_id(0).to(tl.int64)
    cur_split = tl.program_id(1)

    e_sum = 0.0
    e_max = -float("inf")
    for split_kv_id in tl.static_range(NUM_KV_SPLITS):
        split_kv_start = kv_len_per_split * split_kv_id
        split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, n_cols)
        if split_kv_end > split_kv_start:
            tlogic = tl.load(Mid_Lse + cur_batch * stride_mid_row + split_kv_id)
            if tlogic > float("-inf"):
                n_e_max = tl.maximum(tlogic, e_max)
                old_scale = tl.exp(e_max - n_e_max)
                exp_logic = tl.exp(tlogic - n_e_max)
                e_sum = e_sum * old_scale + exp_logic
                e_max = n_e_max
    lse = e_max + tl.log(e_sum)

    split_kv_start = kv_len_per_split * cur_split
    split_kv_end = tl.minimum(split_kv_start + kv_len_per_split, n_cols)
    for start_n in range(split_kv_start, split_kv_end, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        mask = offs_n < split_kv_end
        qk = tl.load(X + cur_batch * stride_x_row + offs_n, mask=mask, other=0.0).to(tl.float32)
        tl.store(
            O + cur_batch * stride_o_row + offs_n,
            tl.exp(qk - lse).to(O.dtype.element_ty),
            mask=mask,
        )


def softmax(
    x: torch.Tensor, out: torch.Tensor | None = None, *, parts: int | None = None
) -> torch.Tensor:
    check_inputs(x, out, parts)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    batch, n_cols = x.shape
    if batch == 0 or n_cols == 0:
        return out
    NUM_KV_SPLITS = parts
    if NUM_KV_SPLITS is None:
        NUM_KV_SPLITS = max(
            1, min(triton.cdiv(PROGRAMS, batch), triton.cdiv(n_cols, BLOCK_N), MAX_KV_SPLITS)
        )
    kv_len_per_split = triton.cdiv(triton.cdiv(n_cols, NUM_KV_SPLITS), BLOCK_N) * BLOCK_N
    attn_lse = torch.empty((batch, NUM_KV_SPLITS), dtype=torch.float32, device=x.device)

    grid = (batch, NUM_KV_SPLITS)
    _fwd_kernel_stage1[grid](
        x, attn_lse, x.stride(0), attn_lse.stride(0), n_cols, kv_len_per_split,
        BLOCK_N=BLOCK_N, num_warps=4, num_stages=2,
    )  # fmt: skip
    _fwd_kernel_stage2[grid](
        x, attn_lse, out, x.stride(0), attn_lse.stride(0), out.stride(0), n_cols,
        kv_len_per_split, NUM_KV_SPLITS=NUM_KV_SPLITS, BLOCK_N=BLOCK_N, num_warps=4,
        num_stages=2,
    )  # fmt: skip
    return out


def check_inputs(x: torch.Tensor, out: torch.Tensor | None, parts: int | None) -> None:
    tensors = {"x": x} if out is None else {"x": x, "out": out}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D (rows, columns), got shape {tuple(t.shape)}")
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} must be fp32, fp16 or bf16, got {t.dtype}")
        if t.shape[1] > 1 and t.stride(1) != 1:
            raise ValueError(f"{name} must have contiguous rows, got strides {t.stride()}")
        if t.shape != x.shape or t.dtype != x.dtype or t.device != x.device:
            raise ValueError(f"{name} must match x")
    if parts is not None and (not isinstance(parts, int) or parts < 1):
        raise ValueError(f"parts must be a whole number of programs, at least 1, got {parts!r}")
