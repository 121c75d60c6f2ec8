"""Correct, written differently: the kernel torch.compile (inductor) generates for a softmax over
the last dimension, a "persistent reduction", in its own vocabulary: numbered temporaries,
xindex/r0_index for rows and columns, XBLOCK rows per program, and its helper modules,
`triton_helpers.max2` for the row max and `tl_math.exp` from
torch._inductor.runtime.triton_helpers. Inductor bakes contiguous strides in; here the two row
strides are arguments (ks0, ks1), as inductor writes them for dynamic strides, so rows of a wider
tensor work. Padded lanes load 0 and are replaced by -inf before the max and by 0 before the sum,
as inductor does. Host code (what inductor's `call` does, as a function of the drill's
signature) picks R0_BLOCK as the next power of two of the row and XBLOCK so that a program holds
at most 1024 values. Scored 0/100 on the grader of commit fbeefee, whose reading refused the
import of torch._inductor."""

import torch
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers
from torch._inductor.runtime.triton_helpers import math as tl_math


@triton.jit
def triton_per_fused__softmax_0(
    in_ptr0, out_ptr2, ks0, ks1, xnumel, r0_numel, XBLOCK: tl.constexpr, R0_BLOCK: tl.constexpr
):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    r0_mask = r0_index < r0_numel
    x0 = xindex.to(tl.int64)
    tmp0 = tl.load(in_ptr0 + (r0_index + ks0 * x0), r0_mask & xmask, other=0.0)
    tmp1 = tl.broadcast_to(tmp0, [XBLOCK, R0_BLOCK]).to(tl.float32)
    tmp3 = tl.where(r0_mask & xmask, tmp1, float("-inf"))
    tmp4 = triton_helpers.max2(tmp3, 1)[:, None]
    tmp5 = tmp1 - tmp4
    tmp6 = tl_math.exp(tmp5)
    tmp7 = tl.broadcast_to(tmp6, [XBLOCK, R0_BLOCK])
    tmp9 = tl.where(r0_mask & xmask, tmp7, 0)
    tmp10 = tl.sum(tmp9, 1)[:, None]
    tmp11 = tmp6 / tmp10
    tl.store(out_ptr2 + (r0_index + ks1 * x0), tmp11, r0_mask & xmask)


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    xnumel, r0_numel = x.shape
    buf2 = torch.empty_like(x) if out is None else out
    R0_BLOCK = triton.next_power_of_2(r0_numel)
    XBLOCK = min(max(1024 // R0_BLOCK, 1), triton.next_power_of_2(xnumel))
    grid = (triton.cdiv(xnumel, XBLOCK),)
    triton_per_fused__softmax_0[grid](
        x, buf2, x.stride(0), buf2.stride(0), xnumel, r0_numel, XBLOCK=XBLOCK, R0_BLOCK=R0_BLOCK
    )
    return buf2
