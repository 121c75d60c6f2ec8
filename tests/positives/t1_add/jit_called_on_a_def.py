"""Correct, written differently: triton.jit called as a function on a plain def, not used as a
decorator: `add_kernel = triton.jit(_add_body)` (done by code that builds kernels from Python
functions, and by people who keep an undecorated version to read or test). The launch goes
through functools.partial, binding the grid-indexed kernel to its launch options, as wrappers
that share settings between calls do. The body is the plain masked add in the inputs' own dtype,
with int64 offsets, one BLOCK_SIZE block per program."""

import functools

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


def _add_body(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(
        out_ptr + offs,
        tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
        mask=mask,
    )


add_kernel = triton.jit(_add_body)


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
    launch = functools.partial(
        add_kernel[(triton.cdiv(n, BLOCK_SIZE),)], BLOCK_SIZE=BLOCK_SIZE, num_warps=4
    )
    launch(x, y, out, n)
    return out
