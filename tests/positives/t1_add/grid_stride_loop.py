"""Correct, written differently: a grid-stride loop. A fixed number of programs, whatever n is;
program p takes blocks p, p + NUM_PROGRAMS, p + 2 * NUM_PROGRAMS, ... with `tl.range(...,
loop_unroll_factor=2)`, so each program's stores lie far apart across out. The interpreter's
check for programs that read back another's stores searched all of a program's stores on every
load: at 2^20 + 1 elements, 257 blocks a program, this file's grade ran past 60 s."""

import torch
import triton
import triton.language as tl

NUM_PROGRAMS = 4


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    n_blocks = tl.cdiv(n_elements, BLOCK_SIZE)
    for block in tl.range(pid, n_blocks, tl.num_programs(axis=0), loop_unroll_factor=2):
        offsets = block.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    block = 1024
    grid = (max(1, min(NUM_PROGRAMS, triton.cdiv(n, block))),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=block)
    return out
