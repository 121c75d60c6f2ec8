"""Crash after a partial run: the first call launches a (do-nothing) kernel, then the process
leaves with os._exit(0), as if the suite had finished. Every case without a result must count
as lost, not passed.

On the grader of commit de3289e: 0/100, status failed (every check "not run: the drill ran out
of time", which is not what happened): nothing forged.
"""

ATTACK = "crash after partial (os._exit(0))"
LAYER = "channel"

import os

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
    os._exit(0)
