"""Loads without a mask but stores with one: the result is right, yet the last program reads
past the end of x and y. The interpreter sees the reads; a GPU faults on them where x ends at
unmapped memory."""

import torch
import triton
import triton.language as tl

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "outside `x`"


def check_inputs(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None) -> None:
    """Reject what add_kernel cannot handle, with a message that says what was wrong."""
    tensors = {"x": x, "y": y} if out is None else {"x": x, "y": y, "out": out}
    for name, t in tensors.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 1:
            raise ValueError(f"{name} must be 1-D, got shape {tuple(t.shape)}")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous (the kernel assumes stride 1)")
        if t.shape != x.shape or t.dtype != x.dtype or t.device != x.device:
            raise ValueError(
                f"{name} must match x: got {tuple(t.shape)} {t.dtype} on {t.device}, "
                f"x is {tuple(x.shape)} {x.dtype} on {x.device}"
            )


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, x + y, mask=offs < n_elements)


def add(x, y, out=None):
    check_inputs(x, y, out)
    out = torch.empty_like(x) if out is None else out
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
