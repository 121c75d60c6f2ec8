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
    pid = tl.program_id(axis=0)
    rows = pid * ROWS_PER_PROGRAM + tl.arange(0, ROWS_PER_PROGRAM)  # [ROWS]
    cols = tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)  # [ROWS, BLOCK_SIZE]
    # int64 row offsets: rows * stride passes 2^31 for large tensors
    x_ptrs = x_ptr + rows[:, None].to(tl.int64) * stride_x_row + cols[None, :]
    # padding lanes load -inf: exp(-inf) = 0 adds nothing to the sum, and -inf never wins the max
    x = tl.load(x_ptrs, mask=mask, other=-float("inf")).to(tl.float32)
    # subtracting the row max leaves the result unchanged and keeps exp() <= 1
    shifted = x - tl.max(x, axis=1)[:, None]
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=1)[:, None]
    y = numerator / denominator
    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_out_row + cols[None, :]
    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(x, out)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    # short rows: several per program, so each program still moves ~1K elements
    ROWS_PER_PROGRAM = max(1, 1024 // BLOCK_SIZE)
    # more elements per program want more threads to hold and load them: on an H200, fp16
    # rows of 16K columns moved 76% of the copy bandwidth with 8 warps and 84% with 16
    # (content/experiments/t2_bandwidth_sweep.py)
    elements = ROWS_PER_PROGRAM * BLOCK_SIZE
    num_warps = 4 if elements <= 4096 else 8 if elements <= 8192 else 16
    grid = (triton.cdiv(n_rows, ROWS_PER_PROGRAM),)
    softmax_kernel[grid](
        x,
        out,
        n_rows,
        n_cols,
        x.stride(0),
        out.stride(0),
        BLOCK_SIZE=BLOCK_SIZE,
        ROWS_PER_PROGRAM=ROWS_PER_PROGRAM,
        num_warps=num_warps,
    )
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
