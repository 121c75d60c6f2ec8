"""Correct, written differently: a branch that a constexpr removes names a helper this file never
defines, `if USE_PACKED: out = packed_add_f16x2(x, y)`, and every launch passes USE_PACKED=False
(attorch and other libraries keep such switches for paths written for other hardware or another
triton). Triton compiles only the branch a constexpr condition takes, and the interpreter never
evaluates the other, so the missing name is never looked up. The path taken is the plain masked
add in the inputs' own dtype, with int64 offsets."""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def add_kernel(
    x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, USE_PACKED: tl.constexpr
):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_PACKED:  # noqa: SIM108 -- a branch, not a ternary: triton compiles only one
        out = packed_add_f16x2(x, y)  # noqa: F821 -- never compiled: USE_PACKED is False
    else:
        out = x + y
    tl.store(out_ptr + offsets, out, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if x.dim() != 1 or x.shape != y.shape or x.dtype != y.dtype or x.device != y.device:
        raise ValueError(
            f"x and y must be 1-D and alike, got {x.shape} {x.dtype}, {y.shape} {y.dtype}"
        )
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("x and y must be contiguous")
    if out is None:
        out = torch.empty_like(x)
    elif out.shape != x.shape or out.dtype != x.dtype or not out.is_contiguous():
        raise ValueError(f"out must be a contiguous {tuple(x.shape)} {x.dtype} tensor")
    n = x.numel()
    if n == 0:
        return out
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE, USE_PACKED=False)
    return out
