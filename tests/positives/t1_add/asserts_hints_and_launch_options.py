"""Correct, written differently: compile-time and device-side assertions (tl.static_assert,
tl.device_assert), a helper compiled as a function of its own (@triton.jit(noinline=True); it
takes scalars, as triton requires of one), hints on the offsets (tl.multiple_of,
tl.max_contiguous), a volatile load, and a launch option the drill never mentions
(enable_fp_fusion=False). 100/100 on an H100 (torch 2.11, triton 3.6) and on the CPU."""

import torch
import triton
import triton.language as tl


@triton.jit(noinline=True)
def _first(pid, BLOCK_SIZE: tl.constexpr):
    return pid * BLOCK_SIZE


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    tl.static_assert(BLOCK_SIZE % 128 == 0, "BLOCK_SIZE must be a multiple of 128")
    tl.device_assert(n_elements > 0, "empty input")
    pid = tl.program_id(axis=0).to(tl.int64)
    offs = tl.max_contiguous(
        tl.multiple_of(_first(pid, BLOCK_SIZE) + tl.arange(0, BLOCK_SIZE), BLOCK_SIZE), BLOCK_SIZE
    )
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, volatile=True)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def add(x, y, out=None):
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    add_kernel[(triton.cdiv(n, 2048),)](
        x, y, out, n, BLOCK_SIZE=2048, num_warps=8, enable_fp_fusion=False
    )
    return out
