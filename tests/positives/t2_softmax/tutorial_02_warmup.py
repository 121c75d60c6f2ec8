"""Correct, written the way Triton's current tutorial 02 launches its softmax: a persistent grid
sized from the device's properties and from a `warmup` compile (its registers and shared memory
give the occupancy), then the compiled kernel launched directly with `kernel[grid](...)`, which
never passes through JITFunction.run. Each program strides over the rows with tl.range.

The module reads the device once at import, as the tutorial does; on the CPU interpreter the
grader stands in a nominal device, so this file is graded unchanged there too."""

import torch
import triton
import triton.language as tl
from triton.runtime import driver

MAX_COLS = 65536

DEVICE = driver.active.get_active_torch_device()
PROPERTIES = driver.active.utils.get_device_properties(DEVICE.index)
NUM_SM = PROPERTIES["multiprocessor_count"]
NUM_REGS = PROPERTIES["max_num_regs"]
SIZE_SMEM = PROPERTIES["max_shared_mem"]
WARP_SIZE = PROPERTIES["warpSize"]


@triton.jit
def softmax_kernel(
    out_ptr,
    x_ptr,
    x_row_stride,
    out_row_stride,
    n_rows,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
    num_stages: tl.constexpr,
):
    first_row = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(first_row, n_rows, step, num_stages=num_stages):
        cols = tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_ptr + row.to(tl.int64) * x_row_stride + cols, mask=mask, other=-float("inf"))
        x = x.to(tl.float32)
        numerator = tl.exp(x - tl.max(x, axis=0))
        y = numerator / tl.sum(numerator, axis=0)
        out_row = out_ptr + row.to(tl.int64) * out_row_stride
        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(x, out)
    n_rows, n_cols = x.shape
    out = torch.empty_like(x) if out is None else out
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if SIZE_SMEM > 200_000 else 2
    # tl.range keeps num_stages - 1 rows in flight in shared memory: 3 rows of 64K fp32 need
    # 768 KB, more than any GPU gives a block, so long rows go unpipelined
    if (num_stages - 1) * BLOCK_SIZE * x.element_size() > SIZE_SMEM // 2:
        num_stages = 1
    kernel = softmax_kernel.warmup(
        out, x, x.stride(0), out.stride(0), n_rows, n_cols,
        BLOCK_SIZE=BLOCK_SIZE, num_stages=num_stages, num_warps=num_warps, grid=(1,),
    )  # fmt: skip
    kernel._init_handles()
    # programs resident per SM: limited by registers and by shared memory
    occupancy = NUM_REGS // (max(kernel.n_regs, 1) * WARP_SIZE * num_warps)
    occupancy = min(occupancy, SIZE_SMEM // max(kernel.metadata.shared, 1))
    num_programs = max(1, min(NUM_SM * occupancy, n_rows))
    kernel[(num_programs, 1, 1)](
        out, x, x.stride(0), out.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages
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
            raise ValueError(f"{name} must have contiguous rows, got strides {t.stride()}")
        if t.shape != x.shape or t.dtype != x.dtype or t.device != x.device:
            raise ValueError(
                f"{name} must match x: got {tuple(t.shape)} {t.dtype} on {t.device}, "
                f"x is {tuple(x.shape)} {x.dtype} on {x.device}"
            )
    if x.shape[1] > MAX_COLS:
        raise ValueError(f"rows of {x.shape[1]} columns are longer than {MAX_COLS}")
