"""Correct, written differently: a PyTorch custom operator that returns its result, as the
recipe "Using User-Defined Triton Kernels with torch.compile" writes `mysin`:
@torch.library.triton_op with mutates_args={}, whose body allocates the output and launches
through torch.library.wrap_triton. A custom op runs its body below a dispatch mode, so the
grader of commit 9e5e019 saw one opaque op where the body allocated and launched, and scored
the file 0/100 ("computed with torch (myadd) outside any launch"); the runner now runs such a
body under its mode."""

import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(
        out_ptr + offsets,
        tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
        mask=mask,
    )


@triton_op("drills_t1_returning::myadd", mutates_args={})
def myadd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n_elements = out.numel()
    wrap_triton(add_kernel)[(triton.cdiv(n_elements, 1024),)](
        x, y, out, n_elements, BLOCK_SIZE=1024
    )
    return out


def add(x, y, out=None):
    result = myadd(x, y)
    if out is None:
        return result
    out.copy_(result)
    return out
