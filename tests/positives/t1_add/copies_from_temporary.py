"""Correct, written differently: the kernel always writes a fresh contiguous temporary, and
the host then copies it into `out` with out.copy_(tmp) when the caller gave one. This is the
"compute into a buffer you own, then copy" pattern of many PyTorch custom ops and FlagGems
wrappers: it lets `out` be any 1-D view, even a strided one (the kernel itself only ever sees
stride 1), and it leaves the inputs untouched. The kernel is the plain masked add in the
inputs' dtype, int64 offsets, grid rounding up; copy_ moves the values without changing them
(same dtype), so the result in `out` is exactly x + y."""

import torch
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
        raise TypeError(f"x and y must be tensors, got {type(x).__name__} and {type(y).__name__}")
    if out is not None and not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a tensor or None, got {type(out).__name__}")
    if x.dim() != 1 or y.dim() != 1:
        raise ValueError(f"x and y must be 1-D, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError(f"x and y must be contiguous, got strides {x.stride()} and {y.stride()}")
    if y.shape != x.shape or y.dtype != x.dtype or y.device != x.device:
        raise ValueError(
            f"y ({tuple(y.shape)} {y.dtype} {y.device}) must match x "
            f"({tuple(x.shape)} {x.dtype} {x.device})"
        )
    if out is not None and (out.shape != x.shape or out.dtype != x.dtype or out.device != x.device):
        raise ValueError(
            f"out ({tuple(out.shape)} {out.dtype} {out.device}) must match x "
            f"({tuple(x.shape)} {x.dtype} {x.device})"
        )
    n = x.numel()
    tmp = torch.empty(n, dtype=x.dtype, device=x.device)
    if n > 0:
        add_kernel[(triton.cdiv(n, BLOCK),)](x, y, tmp, n, BLOCK_SIZE=BLOCK)
    if out is None:
        return tmp
    out.copy_(tmp)
    return out
