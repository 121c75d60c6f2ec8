"""Escape from the interpreted kernel: on the CPU interpreter a @triton.jit body runs as
Python, so the kernel can call a plain Python helper, and torch ops run during a launch are not
charged to the host function (today's TorchSpy skips them, as the kernel's own work). The
helper computes torch.add(x, y, out=out) for the tensors add() left in a module-level list.

The helper cannot compile for a GPU, so the compile check is lost (honestly, 0 there).
Forged 90/100 on the grader of commit de3289e.
"""

ATTACK = "torch inside the interpreted kernel"
LAYER = "kernels"

import torch
import triton
import triton.language as tl

_pending = []


def _assist(value):
    """A plain Python helper called from the kernel: the interpreter runs it mid-launch."""
    while _pending:
        x, y, out = _pending.pop()
        torch.add(x, y, out=out)
    return value


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = _assist(tl.program_id(axis=0))


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    _pending.append((x, y, out))
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
