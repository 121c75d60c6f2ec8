"""t3, lesson §8: how far an fp16 running sum drifts from an fp32 one as K grows. Runs on the
CPU (the interpreter). One 16 x 16 tile of a @ b, with positive fp16 inputs (torch.rand), whose
K loop keeps its running sum in fp32 or in fp16 between steps; each result is compared with the
same product in float64.

Run from the repository root: .venv/bin/python content/experiments/t3_fp16_accumulator.py
"""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before the kernel is defined

import torch
import triton
import triton.language as tl


@triton.jit
def tile_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr, BLOCK_K: tl.constexpr,
                SUM_DTYPE: tl.constexpr):
    rows = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=SUM_DTYPE)
    for k in range(tl.cdiv(K, BLOCK_K)):
        ks = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
        b = tl.load(b_ptr + ks[:, None] * BLOCK + rows[None, :])
        # the step's product is exact enough in fp32; what differs is where the sum is kept
        acc = (acc + tl.dot(a, b)).to(SUM_DTYPE)
    tl.store(c_ptr + rows[:, None] * BLOCK + rows[None, :], acc.to(tl.float32))


print(f"torch {torch.__version__}, triton {triton.__version__}, one 16 x 16 tile, BLOCK_K = 32")
for K in (64, 256, 1024, 4096):
    g = torch.Generator().manual_seed(K)
    a = torch.rand(16, K, generator=g).half()
    b = torch.rand(K, 16, generator=g).half()
    exact = a.double() @ b.double()
    errors = []
    for sum_dtype in (tl.float32, tl.float16):
        c = torch.empty(16, 16)
        tile_kernel[(1,)](a, b, c, K, BLOCK=16, BLOCK_K=32, SUM_DTYPE=sum_dtype)
        errors.append(((c.double() - exact).abs() / exact).max().item())
    print(
        f"K = {K:5d}: sums near {exact.mean():7.1f}; largest relative error, fp32 sum "
        f"{errors[0]:.1e}, fp16 sum {errors[1]:.1e}"
    )
