"""T5 online softmax in the style of PyTorch Inductor's generated online-softmax reduction.

Sources: github.com/pytorch/pytorch, torch/_inductor/runtime/triton_helpers.py
(`maximum`, `max2`, `exp`, `online_softmax_combine`, `online_softmax_reduce`, copied; called
here without the `triton_helpers.` prefix since a kernel file cannot import them), and the
kernel Inductor generates for torch.softmax with online softmax on
(`triton_red_fused__softmax_0`: a [XBLOCK, R0_BLOCK] tile, xindex/xmask and r0_index/r0_mask,
loads with other=0.0 and state kept by tl.where(r0_mask & xmask, next, old), lane-wise
(max, sum) combined per element and reduced once with online_softmax_reduce, a second loop that
writes exp(x - max) / sum). For parts > 1, Inductor's split-reduction shape: a first kernel
over x = (row, part) writes each part's pair into a buffer (buf0), a second kernel over the same
x reduces the row's pairs with online_softmax_reduce and writes its part.
Changes: row strides (ks0, ks1) instead of a contiguous r0_numel; XBLOCK rows per program only
when parts is None (a given `parts` gets n_rows * parts programs).
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

math = tl.math
_LOG_2_E: tl.constexpr = tl.constexpr(1.4426950408889634)


@triton.jit
def maximum(a, b):
    mask = a > b
    if a.dtype.is_floating():
        mask |= a != a
    return tl.where(mask, a, b)


@triton.jit
def max2(a, dim):
    return tl.reduce(a, dim, maximum)


@triton.jit
def exp(x, use_fast_math: tl.constexpr):
    if use_fast_math:
        return libdevice.exp2(x * _LOG_2_E)
    else:
        return math.exp(x)


@triton.jit
def online_softmax_reduce(lhs_max, lhs_sum, dim, use_fast_math: tl.constexpr):
    out_max = max2(lhs_max, dim)
    out_max_keepdim = tl.expand_dims(out_max, dim)
    delta = tl.where(out_max_keepdim == float("-inf"), 0, lhs_max - out_max_keepdim)
    out_sum = tl.sum(lhs_sum * exp(delta, use_fast_math), dim)
    return out_max, out_sum


@triton.jit
def online_softmax_combine(lhs_max, lhs_sum, rhs_max, use_fast_math: tl.constexpr):
    """
    When we do combine, we assume lhs is the accumulator and rhs is the next
    block of data.
    Then rhs_sum is always 1. With that assumption, we can save some registers
    and computation.
    """
    out_max = maximum(lhs_max, rhs_max)

    lhs_scale = tl.where(out_max == float("-inf"), 1.0, exp(lhs_max - out_max, use_fast_math))
    rhs_scale = tl.where(out_max == float("-inf"), 1.0, exp(rhs_max - out_max, use_fast_math))

    # Should be
    #   out_sum = lhs_sum * lhs_scale + rhs_sum * rhs_scale
    # but since rhs_sum is all 1, we can simplify it.
    out_sum = lhs_sum * lhs_scale + rhs_scale
    return out_max, out_sum


@triton.jit
def triton_red_fused__softmax_0(
    in_ptr0, out_ptr2, xnumel, r0_numel, ks0, ks1, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr
):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x0 = xindex.to(tl.int64)
    _tmp3_max = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp3_sum = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r1 = r0_index
        tmp0 = tl.load(
            in_ptr0 + (r1 + ks0 * x0), r0_mask & xmask, eviction_policy="evict_last", other=0.0
        )
        tmp1 = tmp0.to(tl.float32)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])

        _tmp3_max_next, _tmp3_sum_next = online_softmax_combine(_tmp3_max, _tmp3_sum, tmp2, False)

        _tmp3_max = tl.where(r0_mask & xmask, _tmp3_max_next, _tmp3_max)
        _tmp3_sum = tl.where(r0_mask & xmask, _tmp3_sum_next, _tmp3_sum)

    tmp3, tmp4 = online_softmax_reduce(_tmp3_max, _tmp3_sum, 1, False)
    tmp3 = tmp3[:, None]
    tmp4 = tmp4[:, None]
    for r0_offset in range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r0_mask = r0_index < r0_numel
        r1 = r0_index
        tmp5 = tl.load(
            in_ptr0 + (r1 + ks0 * x0), r0_mask & xmask, eviction_policy="evict_first", other=0.0
        )
        tmp6 = tmp5.to(tl.float32)
        tmp7 = tmp6 - tmp3
        tmp8 = math.exp(tmp7)
        tmp9 = tmp8 / tmp4
        tmp10 = tmp9.to(out_ptr2.dtype.element_ty)
        tl.store(out_ptr2 + (r1 + ks1 * x0), tmp10, r0_mask & xmask)


@triton.jit
def triton_red_fused__softmax_split_1(
    in_ptr0,
    out_ptr0,
    out_ptr1,
    xnumel,
    r0_numel,
    ks0,
    ks2,
    ks3,
    XBLOCK: tl.constexpr,
    R0_BLOCK: tl.constexpr,
):
    # x = row * ks3 + part; ks2 columns a part
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    x1 = (xindex // ks3).to(tl.int64)
    x0 = xindex % ks3
    _tmp3_max = tl.full([XBLOCK, R0_BLOCK], float("-inf"), tl.float32)
    _tmp3_sum = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in range(0, ks2, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r2 = r0_index + ks2 * x0
        r0_mask = (r0_index < ks2) & (r2 < r0_numel)
        tmp0 = tl.load(
            in_ptr0 + (r2 + ks0 * x1), r0_mask & xmask, eviction_policy="evict_last", other=0.0
        )
        tmp1 = tmp0.to(tl.float32)
        tmp2 = tl.broadcast_to(tmp1, [XBLOCK, R0_BLOCK])
        _tmp3_max_next, _tmp3_sum_next = online_softmax_combine(_tmp3_max, _tmp3_sum, tmp2, False)
        _tmp3_max = tl.where(r0_mask & xmask, _tmp3_max_next, _tmp3_max)
        _tmp3_sum = tl.where(r0_mask & xmask, _tmp3_sum_next, _tmp3_sum)
    tmp3, tmp4 = online_softmax_reduce(_tmp3_max, _tmp3_sum, 1, False)
    tl.store(out_ptr0 + xindex, tmp3[:, None], xmask)
    tl.store(out_ptr1 + xindex, tmp4[:, None], xmask)


@triton.jit
def triton_red_fused__softmax_split_2(
    in_ptr0,
    in_ptr1,
    in_ptr2,
    out_ptr2,
    xnumel,
    r0_numel,
    ks0,
    ks1,
    ks2,
    ks3,
    XBLOCK: tl.constexpr,
    R0_BLOCK: tl.constexpr,
    R1_BLOCK: tl.constexpr,
):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    x1 = (xindex // ks3).to(tl.int64)
    x0 = xindex % ks3
    # the row's pairs, one per part: reduced as Inductor reduces a split's partials
    r1_index = tl.arange(0, R1_BLOCK)[None, :]
    r1_mask = r1_index < ks3
    tmp0 = tl.load(in_ptr1 + (r1_index + ks3 * x1), r1_mask & xmask, other=float("-inf"))
    tmp1 = tl.load(in_ptr2 + (r1_index + ks3 * x1), r1_mask & xmask, other=0.0)
    tmp3, tmp4 = online_softmax_reduce(tmp0, tmp1, 1, False)
    tmp3 = tmp3[:, None]
    tmp4 = tmp4[:, None]
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    for r0_offset in range(0, ks2, R0_BLOCK):
        r0_index = r0_offset + r0_base
        r2 = r0_index + ks2 * x0
        r0_mask = (r0_index < ks2) & (r2 < r0_numel)
        tmp5 = tl.load(
            in_ptr0 + (r2 + ks0 * x1), r0_mask & xmask, eviction_policy="evict_first", other=0.0
        )
        tmp6 = tmp5.to(tl.float32)
        tmp7 = tmp6 - tmp3
        tmp8 = math.exp(tmp7)
        tmp9 = tmp8 / tmp4
        tmp10 = tmp9.to(out_ptr2.dtype.element_ty)
        tl.store(out_ptr2 + (r2 + ks1 * x1), tmp10, r0_mask & xmask)


def softmax(x, out=None, *, parts=None):
    check_inputs(x, out, parts)
    buf2 = torch.empty_like(x) if out is None else out
    xnumel, r0_numel = x.shape
    if xnumel == 0 or r0_numel == 0:
        return buf2
    R0_BLOCK = 2048
    if parts is None or parts == 1:
        # Inductor packs several short rows a program; a given `parts` needs one a row
        XBLOCK = 8 if (parts is None and r0_numel <= 256) else 1
        R0_BLOCK = min(R0_BLOCK, max(16, triton.next_power_of_2(r0_numel)))
        grid = (triton.cdiv(xnumel, XBLOCK),)
        triton_red_fused__softmax_0[grid](
            x, buf2, xnumel, r0_numel, x.stride(0), buf2.stride(0), XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK
        )
        return buf2
    ks2 = triton.cdiv(r0_numel, parts)
    buf0 = torch.empty((xnumel, parts), dtype=torch.float32, device=x.device)
    buf1 = torch.empty((xnumel, parts), dtype=torch.float32, device=x.device)
    grid = (xnumel * parts,)
    triton_red_fused__softmax_split_1[grid](
        x,
        buf0,
        buf1,
        xnumel * parts,
        r0_numel,
        x.stride(0),
        ks2,
        parts,
        XBLOCK=1,
        R0_BLOCK=R0_BLOCK,
    )
    triton_red_fused__softmax_split_2[grid](
        x,
        buf0,
        buf1,
        buf2,
        xnumel * parts,
        r0_numel,
        x.stride(0),
        buf2.stride(0),
        ks2,
        parts,
        XBLOCK=1,
        R0_BLOCK=R0_BLOCK,
        R1_BLOCK=max(2, triton.next_power_of_2(parts)),
    )
    return buf2


def check_inputs(x: torch.Tensor, out: torch.Tensor | None, parts: int | None) -> None:
    """Reject what the kernels cannot handle, with a message that says what was wrong."""
    tensors = {"x": x} if out is None else {"x": x, "out": out}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D (rows, columns), got shape {tuple(t.shape)}")
        if t.dtype not in (torch.float32, torch.float16, torch.bfloat16):
            raise TypeError(f"{name} must be fp32, fp16 or bf16, got {t.dtype}")
        if t.shape[1] > 1 and t.stride(1) != 1:
            raise ValueError(
                f"{name} must have contiguous rows (stride 1 along the last dimension), got "
                f"strides {t.stride()}: call .contiguous() first"
            )
        if t.shape != x.shape or t.dtype != x.dtype or t.device != x.device:
            raise ValueError(
                f"{name} must match x: got {tuple(t.shape)} {t.dtype} on {t.device}, "
                f"x is {tuple(x.shape)} {x.dtype} on {x.device}"
            )
    if parts is not None and (not isinstance(parts, int) or parts < 1):
        raise ValueError(f"parts must be a whole number of programs, at least 1, got {parts!r}")
