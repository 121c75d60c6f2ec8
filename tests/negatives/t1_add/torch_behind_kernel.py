"""Launches the kernel on a scratch buffer, then fills out= with torch."""

import torch
import triton

from solutions.t1_add import add_kernel, check_inputs

LOSES = [
    "launches its Triton kernel (no torch arithmetic)",
    "masks the tail (n not a multiple of BLOCK_SIZE)",
]
MAX_SCORE = 0
SAYS = "computed with torch"


def add(x, y, out=None):
    check_inputs(x, y, out)
    scratch = torch.empty_like(x)
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, scratch, x.numel(), BLOCK_SIZE=1024)
    out = torch.empty_like(x) if out is None else out
    torch.add(x, y, out=out)
    return out
