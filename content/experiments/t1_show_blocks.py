import os

os.environ["TRITON_INTERPRET"] = "1"  # before the kernel is defined or imported

import torch
import triton
import triton.language as tl


@triton.jit
def show_blocks(n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    print("offs", offs)
    print("mask", offs < n_elements)


show_blocks[(triton.cdiv(10, 4),)](10, BLOCK_SIZE=4)
