"""t5 · Online softmax over rows of any length

You will learn: a row longer than any block, walked in blocks; the online softmax, which carries
a running max and a running sum and rescales the sum when the max grows; one row split across
several programs, each reducing its part to a (max, sum) pair, and the combine step that merges
the pairs into the row's; a second kernel, launched after the first, as the way programs wait
for each other.
Contract: x is 2-D with a contiguous last dimension (rows may be strided), fp32, fp16 or bf16,
rows of any length, -inf where a value is masked (each row has a finite one); parts, when given,
is how many programs share each row (at least 1; a part may be empty). Returns softmax over the
last dimension, in x's dtype, computed in fp32.
Lesson: content/t5_online_softmax.md
"""

import torch
import triton
import triton.language as tl

# Columns a program holds at once. A row is walked in blocks of this many, however long it is.
BLOCK_SIZE = 4096
# With parts=None, rows are split until the grid has about this many programs: enough to keep
# every SM of a large GPU busy when there are only a few rows.
PROGRAMS = 1024


@triton.jit
def part_stats_kernel(
    x_ptr,
    max_ptr,  # [n_rows, PARTS] fp32: each part's max
    sum_ptr,  # [n_rows, PARTS] fp32: each part's sum of exp(x - its max)
    n_cols,
    stride_x_row,
    part_cols,  # columns a part covers, a multiple of BLOCK_SIZE
    PARTS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    part = tl.program_id(axis=1)
    row_start = x_ptr + row.to(tl.int64) * stride_x_row
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    # the running max starts below every value, so that only the row's own values make it
    running_max = -float("inf")
    running_sum = 0.0
    for block_start in range(start, end, BLOCK_SIZE):
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        # padding lanes load -inf: exp(-inf) adds 0 to the sum, and -inf never wins the max
        x = tl.load(row_start + cols, mask=cols < end, other=-float("inf")).to(tl.float32)
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        # while the part has shown only -inf (masked logits), the max is -inf too, and x - max
        # would be -inf - (-inf), NaN: subtract 0 then, which makes every exp() 0
        shift = tl.where(new_max == -float("inf"), 0.0, new_max)
        # the sum so far was taken against the old max: rescale it to the new one
        running_sum = running_sum * tl.exp(running_max - shift) + tl.sum(tl.exp(x - shift), axis=0)
        running_max = new_max
    tl.store(max_ptr + row * PARTS + part, running_max)
    tl.store(sum_ptr + row * PARTS + part, running_sum)


@triton.jit
def normalize_kernel(
    x_ptr,
    out_ptr,
    max_ptr,
    sum_ptr,
    n_cols,
    stride_x_row,
    stride_out_row,
    part_cols,
    PARTS: tl.constexpr,
    PARTS_BLOCK: tl.constexpr,  # PARTS rounded up to a power of two, for tl.arange
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(axis=0)
    part = tl.program_id(axis=1)
    # the combine: every program of the row merges the row's (max, sum) pairs for itself
    parts = tl.arange(0, PARTS_BLOCK)
    in_row = parts < PARTS  # padding pairs: a max of -inf and a sum of 0 change nothing
    maxes = tl.load(max_ptr + row * PARTS + parts, mask=in_row, other=-float("inf"))
    sums = tl.load(sum_ptr + row * PARTS + parts, mask=in_row, other=0.0)
    row_max = tl.max(maxes, axis=0)
    # each part's sum was taken against its own max; an empty part's is 0 against -inf
    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)

    x_row = x_ptr + row.to(tl.int64) * stride_x_row
    out_row = out_ptr + row.to(tl.int64) * stride_out_row
    start = part * part_cols
    end = tl.minimum(start + part_cols, n_cols)
    for block_start in range(start, end, BLOCK_SIZE):
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        mask = cols < end
        x = tl.load(x_row + cols, mask=mask).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(
    x: torch.Tensor, out: torch.Tensor | None = None, *, parts: int | None = None
) -> torch.Tensor:
    check_inputs(x, out, parts)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return out
    if parts is None:
        parts = parts_for(n_rows, n_cols)
    # each part covers whole blocks, so that only a row's last block needs its mask
    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK_SIZE) * BLOCK_SIZE
    stats = torch.empty(2, n_rows, parts, dtype=torch.float32, device=x.device)
    grid = (n_rows, parts)
    part_stats_kernel[grid](
        x, stats[0], stats[1], n_cols, x.stride(0), part_cols, PARTS=parts, BLOCK_SIZE=BLOCK_SIZE
    )
    # the second launch starts after the first has finished: every part's pair is stored
    normalize_kernel[grid](
        x,
        out,
        stats[0],
        stats[1],
        n_cols,
        x.stride(0),
        out.stride(0),
        part_cols,
        PARTS=parts,
        PARTS_BLOCK=triton.next_power_of_2(parts),
        BLOCK_SIZE=BLOCK_SIZE,
    )
    return out


def parts_for(n_rows: int, n_cols: int) -> int:
    """Programs a row: enough for about PROGRAMS in all, and no more than the row has blocks."""
    return max(1, min(triton.cdiv(PROGRAMS, n_rows), triton.cdiv(n_cols, BLOCK_SIZE)))


def check_inputs(x: torch.Tensor, out: torch.Tensor | None, parts: int | None) -> None:
    """Reject what the kernels cannot handle, with a message that says what was wrong."""
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
    if parts is not None and (not isinstance(parts, int) or parts < 1):
        raise ValueError(f"parts must be a whole number of programs, at least 1, got {parts!r}")
