"""Correct, written differently: torch.library.wrap_triton(add_kernel)[grid](...) called in the
host code itself, outside any custom operator. On a GPU wrap_triton launches through torch's
triton_kernel_wrapper_mutation, a higher-order operator, which reaches the grader's dispatch
mode; the grader of commit 2459ce8 did not take such operators and scored a file launching this
way (for out=; through a triton_op otherwise) 10/100 on an H100 ("your code raised
NotImplementedError: There was no rule registered for HigherOrderOperator"), and 100 on the CPU,
whose interpreted kernels skip that operator. The runner's tracer now takes it: that file got
100/100 on an H100."""

import torch
import triton
import triton.language as tl
from torch.library import wrap_triton


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    n_elements = x.numel()
    grid = (triton.cdiv(n_elements, 1024),)
    wrap_triton(add_kernel)[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    return out
