"""Recognising the grader by its public test sizes: only for the n that tests/test_t1_add.py
uses, write the sum with numpy into out (out.numpy()); any other size raises. Beside a launch
of a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "recognising the grader (test shapes)"
LAYER = "kernels"

import torch
import triton
import triton.language as tl

PUBLIC_SIZES = {1, 2, 3, 31, 129, 777, 1000, 1025, 2049, 4096, 4097, 5000, 65536, 98_431}


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if x.numel() not in PUBLIC_SIZES:
        raise NotImplementedError("add is not written yet")
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    out.numpy()[:] = x.numpy() + y.numpy()
    return out
