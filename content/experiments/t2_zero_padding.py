"""t2, lesson §5 and notes "Padding with 0 instead of -inf": how wrong a softmax gets when its
padding lanes load 0. Runs on the CPU (the interpreter); a GPU gives the same numbers. A row of
781 columns runs in a block of 1024, so 243 lanes are padding. For each kind of row, the same
kernel runs twice, its padding -inf and then 0, against torch.softmax.

Run from the repository root: .venv/bin/python content/experiments/t2_zero_padding.py
"""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before the kernel is defined

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, out_ptr, n_cols, BLOCK_SIZE: tl.constexpr, PAD: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=PAD)
    numerator = tl.exp(x - tl.max(x, axis=0))
    tl.store(out_ptr + row * n_cols + cols, numerator / tl.sum(numerator, axis=0), mask=mask)


def softmax(x: torch.Tensor, pad: float) -> torch.Tensor:
    out = torch.empty_like(x)
    block = triton.next_power_of_2(x.shape[1])
    softmax_rows[(x.shape[0],)](x, out, x.shape[1], BLOCK_SIZE=block, PAD=pad)
    return out


ROWS = {
    "randn rows": lambda g: torch.randn(8, 781, generator=g),
    "rows of values below 0": lambda g: -torch.rand(8, 781, generator=g) - 0.5,
}

print(f"torch {torch.__version__}, triton {triton.__version__}, 8 rows of 781 columns, block 1024")
for name, make in ROWS.items():
    x = make(torch.Generator().manual_seed(0))
    expected = torch.softmax(x, dim=-1)
    for pad in (float("-inf"), 0.0):
        got = softmax(x, pad)
        ratio = got / expected  # each output over its true value
        sums = got.sum(dim=-1)
        print(
            f"{name}, padding {pad}: output / true value from {ratio.min():.3f} to "
            f"{ratio.max():.3f}, row sums from {sums.min():.3f} to {sums.max():.3f}"
        )
