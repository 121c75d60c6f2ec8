"""The answer computed in a launch's pre-run hook: triton calls the hooks of a kernel before
it runs, with its arguments, inside the launch, where the torch spy was off.

Forged 90-100 on the grader of commit fbeefee (issue 23).
"""

ATTACK = "pre-run hook"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def answer(x_ptr, y_ptr, out_ptr, *rest, **options):
    torch.add(x_ptr, y_ptr, out=out_ptr)


add_kernel.add_pre_run_hook(answer)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
