"""Crash after a partial run, with SystemExit(0) and GeneratorExit: every call launches a
(do-nothing) kernel, then raises SystemExit(0) on odd calls and GeneratorExit on even ones;
neither is an Exception, and SystemExit(0) asks for a clean exit.

On the grader of commit de3289e: 0/100 (pytest reports both as failed cases): nothing forged.
"""

ATTACK = "crash after partial (SystemExit, GeneratorExit)"
LAYER = "channel"

import torch
import triton
import triton.language as tl

_calls = [0]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    _calls[0] += 1
    if _calls[0] % 2:
        raise SystemExit(0)
    raise GeneratorExit
