"""t2, lesson §10: registers, spills and speed of the reference kernel at 1024 x 65536 for 8,
16 and 32 warps, in fp32 and fp16, beside torch.softmax. Needs a GPU. This is the script, as it
ran (the GPU check at its top came later), behind the numbers in content/t2_notes.md, "Long rows:
warps and spills".

Run from the repository root: python3 content/experiments/t2_long_rows.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from triton.testing import do_bench
from solutions.t2_softmax import softmax_kernel
for dtype in (torch.float32, torch.float16):
    x = torch.randn(1024, 65536, device="cuda", dtype=dtype); out = torch.empty_like(x)
    gb = lambda ms: 2 * x.numel() * x.element_size() / ms / 1e6
    t = gb(do_bench(lambda: torch.softmax(x, dim=-1), return_mode="median"))
    for w in (8, 16, 32):
        f = lambda: softmax_kernel[(1024,)](x, out, 1024, 65536, x.stride(0), out.stride(0), BLOCK_SIZE=65536, ROWS_PER_PROGRAM=1, num_warps=w)
        k = f()
        print(dtype, f"w{w} spills {k.n_spills} {gb(do_bench(f, return_mode='median')):.0f} GB/s, torch {t:.0f}", flush=True)
