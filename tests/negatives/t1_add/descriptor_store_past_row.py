"""Adds through 1-D tensor descriptors (tl.make_tensor_descriptor), in the style of PyTorch's test
kernels. On the interpreter it is right. On an NVIDIA GPU a descriptor's store (TMA) writes whole
16-byte chunks, so where n fp32 elements are not a multiple of 16 bytes the last store also writes
the rest of its chunk, up to 3 elements past `out` (seen on an H200, triton 3.6: n = 1025 and
n = 1 each wrote 3 elements past the end; triton issue #11583)."""

import torch
import triton
import triton.language as tl

LOSES = ["tail"]
SAYS = "16-byte chunks"
RUNTIMES = ["gpu"]


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, [n_elements], [1], [BLOCK_SIZE])
    y_desc = tl.make_tensor_descriptor(y_ptr, [n_elements], [1], [BLOCK_SIZE])
    out_desc = tl.make_tensor_descriptor(out_ptr, [n_elements], [1], [BLOCK_SIZE])
    start = tl.program_id(axis=0) * BLOCK_SIZE
    out_desc.store([start], x_desc.load([start]) + y_desc.load([start]))


def scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Global memory for the descriptors the kernel makes, on a GPU."""
    return torch.empty(size, device="cuda", dtype=torch.int8)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    out = torch.empty_like(x) if out is None else out
    n = out.numel()
    if x.is_cuda:
        triton.set_allocator(scratch)
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out
