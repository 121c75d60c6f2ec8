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

from drills import NotStarted

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
    # TODO(t5.1): this program's row and part (axes 0 and 1), and the columns its part covers:
    #             from part * part_cols up to the smaller of that + part_cols and n_cols
    # TODO(t5.2): a running max that starts at -inf and a running sum that starts at 0.0
    # TODO(t5.3): walk the part in blocks of BLOCK_SIZE columns; for each block, load it
    #             (row r starts at x_ptr + r * stride_x_row) masked, padding with -inf, in fp32,
    #             take the new max, rescale the running sum to it (* exp(old max - new max)),
    #             and add the block's sum of exp(x - new max); while the max is still -inf
    #             (only masked values so far), subtract 0 instead of it (-inf - -inf is NaN)
    # TODO(t5.4): store the part's max and sum at [row, part] of max_ptr and sum_ptr
    pass


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
    # TODO(t5.5): load the row's PARTS maxes and sums (tl.arange(0, PARTS_BLOCK), masked:
    #             -inf and 0 for the padding) and combine them into the row's max and sum:
    #             each part's sum was taken against its own max, so rescale it first
    # TODO(t5.6): walk this program's part again in blocks; store exp(x - max) / sum into out
    #             (row r starts at out_ptr + r * stride_out_row), masked
    pass


def softmax(
    x: torch.Tensor, out: torch.Tensor | None = None, *, parts: int | None = None
) -> torch.Tensor:
    raise NotStarted("t5_online_softmax")  # TODO(t5.0): delete this line when you start
    check_inputs(x, out, parts)
    if out is None:
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return out
    if parts is None:
        parts = parts_for(n_rows, n_cols)
    # TODO(t5.7): part_cols, the columns of each part: a row's share, rounded up to whole blocks
    # TODO(t5.8): a float32 buffer for the maxes and the sums, [n_rows, parts] each
    # TODO(t5.9): launch part_stats_kernel, then normalize_kernel, on the grid (n_rows, parts)
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
