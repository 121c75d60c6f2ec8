"""Correct, written differently: the form of Triton's tutorial 12 (12-vector-add-pipeline.py): a
fixed grid of NUM_PROGRAMS programs whatever n is (`grid = lambda meta: (NUM_PROGRAMS,)`), each
owning one contiguous span of BLOCK_SIZE elements that it walks in steps of STRIDE with
`tl.range(..., num_stages=...)`, and an autotune over the pipeline depth with `key=[]`. The
tutorial's BLOCK_SIZE = n // num_sm drops the remainder when n is not a multiple; here it is
cdiv(n, NUM_PROGRAMS) rounded up to a multiple of STRIDE, so the spans cover every element, and
every step is masked against n (late programs may own nothing, and load and store nothing). On
the interpreter the grid is 4 programs and the autotune list one config (TRITON_INTERPRET, read
at import); on a GPU 1024 programs and the tutorial's three depths."""

import os

import torch
import triton
import triton.language as tl

INTERPRETING = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
NUM_PROGRAMS = 4 if INTERPRETING else 128 * 2 * 4
STRIDE = 1024
STAGES = [2] if INTERPRETING else [2, 4, 8]


@triton.autotune(
    configs=[triton.Config({"num_pipeline_stages": s}, num_warps=4) for s in STAGES], key=[]
)
@triton.jit
def add_kernel(
    x_ptr,
    y_ptr,
    output_ptr,
    n_elements,
    BLOCK_SIZE: tl.constexpr,
    stride: tl.constexpr,
    num_pipeline_stages: tl.constexpr,
):
    block_start = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE
    for offset in tl.range(0, BLOCK_SIZE, stride, num_stages=num_pipeline_stages):
        offsets = block_start + offset + tl.arange(0, stride)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(output_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if x.dim() != 1 or x.shape != y.shape or x.dtype != y.dtype or x.device != y.device:
        raise ValueError(
            f"x and y must be 1-D and alike, got {x.shape} {x.dtype}, {y.shape} {y.dtype}"
        )
    if not (x.is_contiguous() and y.is_contiguous()):
        raise ValueError("x and y must be contiguous")
    output = torch.empty_like(x) if out is None else out
    if output.shape != x.shape or output.dtype != x.dtype or not output.is_contiguous():
        raise ValueError(f"out must be a contiguous {tuple(x.shape)} {x.dtype} tensor")
    n_elements = output.numel()
    if n_elements == 0:
        return output
    grid = lambda meta: (NUM_PROGRAMS,)
    BLOCK_SIZE = triton.cdiv(triton.cdiv(n_elements, NUM_PROGRAMS), STRIDE) * STRIDE
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=BLOCK_SIZE, stride=STRIDE)
    return output
