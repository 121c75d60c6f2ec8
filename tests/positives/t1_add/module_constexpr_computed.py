"""Correct, written differently: the block size is a module-level constexpr computed with
triton.next_power_of_2, which the kernel reads as a global (Triton lets a kernel read a global
that is a tl.constexpr), not an argument. Scored 0/100 on the grader of commit 4c67950 on the CPU
(and on an H100, as issue 48 reported)."""

import torch
import triton
import triton.language as tl

BLOCK = tl.constexpr(triton.next_power_of_2(1000))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements):
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    n_elements = x.numel()
    add_kernel[(triton.cdiv(n_elements, BLOCK.value),)](x, y, out, n_elements)
    return out
