"""Correct, written differently: host code that imports what the judge used to refuse. It keeps
its launch settings in a types.SimpleNamespace (FlagGems' matmul imports `types` like this),
logs through a module-level logger, sizes the grid with numpy, and checks its inputs with a
torch reduction (torch.isfinite(...).all()). None of it reaches a result: the kernel is the
plain masked add in the inputs' dtype, with int64 offsets, and it is the only thing that writes
`out`. Scored 0/100 on the grader of commit fbeefee, whose reading of the host code refused
`import types` and numpy before anything ran."""

import logging
import types

import numpy as np
import torch
import triton
import triton.language as tl

LOG = logging.getLogger(__name__)
SETTINGS = types.SimpleNamespace(block=1024, warps=4)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if x.shape != y.shape or x.dim() != 1:
        raise ValueError(f"x and y must be 1-D and alike, got {tuple(x.shape)}, {tuple(y.shape)}")
    if x.dtype.is_floating_point and not bool(torch.isfinite(x).all()):
        LOG.warning("x holds inf or NaN")
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    programs = int(np.ceil(n / SETTINGS.block))
    add_kernel[(programs,)](x, y, out, n, BLOCK_SIZE=SETTINGS.block, num_warps=SETTINGS.warps)
    return out
