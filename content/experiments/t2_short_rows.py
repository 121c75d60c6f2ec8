"""t2, lesson §9: rows per program and warps for the short rows (4096 x 256 and 4096 x 1024),
fp32 and fp16, against torch.softmax, 3 alternating rounds of do_bench medians. Needs a GPU.
This is the script, as it ran (the GPU check at its top came later), behind the numbers in
content/t2_notes.md, "Short rows: the reference's rules".

Run from the repository root: python3 content/experiments/t2_short_rows.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from triton.testing import do_bench
from solutions.t2_softmax import softmax_kernel
for dtype in (torch.float32, torch.float16):
    for n_cols in (256, 1024):
        x = torch.randn(4096, n_cols, device="cuda", dtype=dtype); out = torch.empty_like(x)
        gb = lambda ms: 2 * x.numel() * x.element_size() / ms / 1e6
        runs = {"torch": lambda: torch.softmax(x, dim=-1)}
        for rows in (1, 2, 4, 8, 16):
            for w in (1, 2, 4, 8):
                runs[f"rows {rows} w{w}"] = lambda rows=rows, w=w: softmax_kernel[(triton.cdiv(4096, rows),)](
                    x, out, 4096, n_cols, x.stride(0), out.stride(0), BLOCK_SIZE=n_cols, ROWS_PER_PROGRAM=rows, num_warps=w)
        results = {name: [] for name in runs}
        for _ in range(3):
            for name, f in runs.items():
                results[name].append(gb(do_bench(f, return_mode="median")))
        median = {name: sorted(v)[1] for name, v in results.items()}
        best = sorted(median.items(), key=lambda kv: -kv[1])[:5]
        print(dtype, f"4096x{n_cols}: torch {median['torch']:.0f} GB/s; best: " + ", ".join(f"{n} {g:.0f}" for n, g in best), flush=True)
        print("   all:", " ".join(f"[{n}] {g:.0f}" for n, g in median.items()), flush=True)
