"""t2 · Row-wise softmax

You will learn: reductions inside a program (tl.max, tl.sum); subtracting the row maximum so
exp cannot overflow; padding masked lanes with -inf; one fused kernel instead of five passes
over memory; several rows per program when rows are short.
Contract: x is 2-D with a contiguous last dimension (rows may be strided, as in a slice of a
wider tensor), fp32, fp16 or bf16, at most MAX_COLS columns; returns softmax over the last
dimension, in x's dtype, computed in fp32.
Lesson: content/t2_softmax.md
"""

import torch
import triton
import triton.language as tl

from drills import NotStarted

# The whole row lives in one block: past 64K columns it no longer fits in registers.
MAX_COLS = 65536


@triton.jit
def softmax_kernel(
    x_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_x_row,
    stride_out_row,
    BLOCK_SIZE: tl.constexpr,
    ROWS_PER_PROGRAM: tl.constexpr,
):
    # TODO(t2.1): the rows this program owns: pid * ROWS_PER_PROGRAM + tl.arange(...)
    #             (with ROWS_PER_PROGRAM = 1 that is just the row pid)
    # TODO(t2.2): the columns, and a mask that is False past n_cols and past n_rows
    # TODO(t2.3): load the rows (row r starts at x_ptr + r * stride_x_row), padding masked
    #             lanes with -inf, and convert to float32
    # TODO(t2.4): subtract each row's max, exponentiate, divide by each row's sum
    # TODO(t2.5): store into out (row r starts at out_ptr + r * stride_out_row), masked
    pass


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotStarted("t2_softmax")  # TODO(t2.0): delete this line when you start
    check_inputs(x, out)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    # TODO(t2.6): a power-of-two BLOCK_SIZE that holds a whole row
    # start with one row per program; the lesson shows when more pay off
    ROWS_PER_PROGRAM = 1
    # TODO(t2.7): a grid with enough programs for every row, then launch softmax_kernel
    return out


def check_inputs(x: torch.Tensor, out: torch.Tensor | None) -> None:
    """Reject what softmax_kernel cannot handle, with a message that says what was wrong."""
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
    if x.shape[1] > MAX_COLS:
        raise ValueError(
            f"rows of {x.shape[1]} columns are longer than this kernel's limit of {MAX_COLS}: "
            "it holds a whole row in one block (content/t2_softmax.md explains the way past it)"
        )
