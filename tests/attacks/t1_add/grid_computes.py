"""The answer computed in the grid function: triton evaluates a callable grid inside the launch
(once more where a hook or the autotuner asks), where the torch spy was off. Worked on the GPU
too.

Forged 100/100 on the CPU and on the H200 on the grader of commit fbeefee (issue 23).
"""

ATTACK = "grid function computes"
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

    def grid(meta):
        torch.add(x, y, out=out)
        return (1,)

    add_kernel[grid](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
