"""ctypes: the sum is computed with numpy on copies read straight from the inputs' addresses
(ctypes.string_at), and ctypes.memmove puts it at out.data_ptr(): no torch call touches the
values at all. Beside a launch of a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "ctypes memmove"
LAYER = "kernels"

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


_NP = {torch.float32: np.float32, torch.float16: np.float16, torch.int32: np.int32}


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    size = x.numel() * x.element_size()
    kind = _NP[x.dtype]
    a = np.frombuffer(ctypes.string_at(x.data_ptr(), size), dtype=kind)
    b = np.frombuffer(ctypes.string_at(y.data_ptr(), size), dtype=kind)
    result = np.ascontiguousarray(a + b)
    ctypes.memmove(out.data_ptr(), result.ctypes.data, size)
    return out
