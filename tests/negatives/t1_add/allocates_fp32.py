"""Allocates its own output as float32 whatever the inputs are, when out= is not given."""

import torch
import triton

from solutions.t1_add import add_kernel, check_inputs

LOSES = ["allocates the result when out= is not given"]
SAYS = "expected a new (1000,) torch.float16 tensor"


def add(x, y, out=None):
    check_inputs(x, y, out)
    out = torch.empty(x.shape, device=x.device) if out is None else out
    add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
