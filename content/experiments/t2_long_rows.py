"""t2, §8: registers, spills and speed of the reference kernel at 1024 x 65536, for 8, 16 and
32 warps, in fp32 and fp16, beside torch.softmax. Needs a GPU.

Run from the repository root: python content/experiments/t2_long_rows.py
"""

import sys

import torch
import triton.testing

sys.path.insert(0, ".")
from solutions.t2_softmax import softmax_kernel  # noqa: E402

ROWS, COLS = 1024, 65536

for dtype in (torch.float32, torch.float16):
    x = torch.randn(ROWS, COLS, device="cuda", dtype=dtype)
    out = torch.empty_like(x)
    per_ms = 2 * x.numel() * x.element_size() / 1e6  # GB/s once divided by milliseconds
    torch_rate = per_ms / triton.testing.do_bench(
        lambda: torch.softmax(x, -1), return_mode="median"
    )
    for num_warps in (8, 16, 32):

        def launch():
            return softmax_kernel[(ROWS,)](
                x,
                out,
                ROWS,
                COLS,
                x.stride(0),
                out.stride(0),
                BLOCK_SIZE=COLS,
                ROWS_PER_PROGRAM=1,
                num_warps=num_warps,
            )

        compiled = launch()
        rate = per_ms / triton.testing.do_bench(launch, return_mode="median")
        print(
            f"{dtype}, {num_warps} warps: {compiled.n_regs} registers, {compiled.n_spills} "
            f"spilled; {rate:.0f} GB/s (torch.softmax {torch_rate:.0f})"
        )
