"""Correct, written differently: `from __future__ import annotations` at the top of the file,
as many code bases do by default. It turns every annotation into a string, so the kernel's
`BLOCK_SIZE: tl.constexpr` reaches Triton as the string "tl.constexpr", which Triton still reads
as a constexpr; the host's `torch.Tensor | None` annotations are never evaluated. Otherwise the
kernel is the plain one: int64 block start, one mask for both loads and the store, the sum in
the inputs' own dtype, and a grid that rounds up."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 512


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    total = tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, total, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    operands = {"x": x, "y": y}
    if out is not None:
        operands["out"] = out
    for name, t in operands.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"expected {name} to be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 1:
            raise ValueError(f"expected {name} to be 1-D, got {t.dim()}-D {tuple(t.shape)}")
        if not t.is_contiguous():
            raise ValueError(f"expected {name} to be contiguous, got stride {t.stride()}")
        if t.shape != x.shape:
            raise ValueError(f"{name} has {t.numel()} elements, x has {x.numel()}")
        if t.dtype != x.dtype:
            raise ValueError(f"{name} is {t.dtype}, x is {x.dtype}")
        if t.device != x.device:
            raise ValueError(f"{name} is on {t.device}, x is on {x.device}")
    result = torch.empty_like(x) if out is None else out
    n = x.numel()
    if n > 0:
        add_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, result, n, BLOCK_SIZE=BLOCK_SIZE)
    return result
