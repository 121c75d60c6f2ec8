"""Correct, written differently: a PyTorch custom operator, @torch.library.triton_op with
torch.library.wrap_triton(add_kernel)[grid](...), the form PyTorch's recipe "Using User-Defined
Triton Kernels with torch.compile" recommends, with the recipe's tiny blocks (it writes
BLOCK_SIZE=4; here 16). At 2^20 + 1 elements that is 65,537 programs, past what the interpreter
runs in a case's time: the grader of commit 9f732e3 timed that case out after 60 s and took the
check's 20 points; now that case, marked large in the suite, is left to a GPU like a GPU-only
one."""

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


@triton_op("drills_t1::add_out", mutates_args={"out"})
def add_out(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n_elements = out.numel()

    def grid_fn(meta):
        return (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)

    wrap_triton(add_kernel)[grid_fn](x, y, out, n_elements, BLOCK_SIZE=16)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    assert x.shape == y.shape and x.dim() == 1
    if out is None:
        out = torch.empty_like(x)
    add_out(x, y, out)
    return out
