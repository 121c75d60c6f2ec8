"""t1 · Vector add

You will learn: one program per block of elements (pid, offsets, BLOCK_SIZE); masking the tail;
launching a kernel over a 1-D grid that rounds up.
Contract: x and y are 1-D tensors of the same length, dtype and device; returns x + y.
Lesson: content/t1_add.md
"""

import torch
import triton
import triton.language as tl

from drills import NotStarted


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # TODO(t1.1): find this program's number along axis 0
    # TODO(t1.2): compute the offsets of the BLOCK_SIZE elements this program owns
    # TODO(t1.3): build a mask that is False for offsets at or past n_elements
    # TODO(t1.4): load x and y at those offsets (masked), add, and store into out (masked)
    pass


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotStarted("t1_add")  # TODO(t1.0): delete this line when you start
    check_inputs(x, y, out)
    if out is None:
        out = torch.empty_like(x)
    n_elements = x.numel()
    BLOCK_SIZE = 1024
    # TODO(t1.5): a 1-D grid with enough programs to cover all n_elements (round up)
    # TODO(t1.6): launch add_kernel over that grid and return out
    return out


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
