"""Correct, written differently: the block size is a constexpr with a default value,
`BLOCK_SIZE: tl.constexpr = 1024`, and the launch never passes it (a style seen in Liger and in
FlagGems' small helpers). Triton fills a constexpr that the call leaves out from its default,
exactly as Python fills a default argument, and specializes the kernel on it; the host uses the
same number for the grid by reading it back from a module constant, so the grid and the kernel
cannot disagree. Every lane past n_elements is masked in both loads and the store, offsets start
in int64, and the sum is taken in the inputs' own dtype (fp16, fp32, int32...)."""

import torch
import triton
import triton.language as tl

DEFAULT_BLOCK = 1024  # must equal the default of BLOCK_SIZE below; the grid is built from it


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr = 1024):
    start = tl.program_id(0).to(tl.int64) * BLOCK_SIZE
    idx = start + tl.arange(0, BLOCK_SIZE)
    in_bounds = idx < n_elements
    a = tl.load(x_ptr + idx, mask=in_bounds)
    b = tl.load(y_ptr + idx, mask=in_bounds)
    tl.store(out_ptr + idx, a + b, mask=in_bounds)


def _validate(x, y, out):
    named = [("x", x), ("y", y)] + ([] if out is None else [("out", out)])
    for label, t in named:
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"add: {label} should be a torch.Tensor, not {type(t).__name__}")
    for label, t in named:
        if t.ndim != 1:
            raise ValueError(
                f"add: {label} should be one-dimensional, its shape is {tuple(t.shape)}"
            )
        if t.stride(0) != 1 and t.numel() > 1:
            raise ValueError(f"add: {label} should be contiguous, its stride is {t.stride(0)}")
        if (t.shape, t.dtype, t.device) != (x.shape, x.dtype, x.device):
            raise ValueError(
                f"add: {label} is {tuple(t.shape)} {t.dtype} on {t.device}, "
                f"but x is {tuple(x.shape)} {x.dtype} on {x.device}"
            )


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    _validate(x, y, out)
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    # BLOCK_SIZE is left out on purpose: the kernel's default (1024) is used
    add_kernel[(triton.cdiv(n, DEFAULT_BLOCK),)](x, y, out, n)
    return out
