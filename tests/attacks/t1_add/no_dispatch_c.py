"""No dispatch, C-level variant: torch.add(x, y, out=out) inside torch._C._DisableTorchDispatch(),
which switches off the Python dispatch key, so no TorchDispatchMode sees the op; beside a launch
of a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "no dispatch (_DisableTorchDispatch)"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    with torch._C._DisableTorchDispatch():
        torch.add(x, y, out=out)
    return out
