"""No dispatch: torch.add(x, y, out=out) inside torch.utils._python_dispatch.
_disable_current_modes(), which pops every TorchDispatchMode (the grader's TorchSpy included)
for the duration, beside a launch of a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "no dispatch (disable current modes)"
LAYER = "kernels"

import torch
import triton
import triton.language as tl
from torch.utils._python_dispatch import _disable_current_modes


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    with _disable_current_modes():
        torch.add(x, y, out=out)
    return out
