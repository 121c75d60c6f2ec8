"""t2, notes "Rows split across programs": can a thread-block cluster hold a row of 64K columns
that one program's registers cannot, with the drill's own kernel unchanged? num_ctas=N asks
Triton to spread each program's blocks over a cluster of N CTAs on N SMs, whose shared memory
the reductions can then cross. Needs a GPU of compute capability 9.0 or newer (clusters).
Output: t2_clusters.out.

For each dtype, num_ctas and num_warps: the kernel's result against torch.softmax, then its
bandwidth by do_bench (L2 flushed), as a share of the copy limit (torch's copy and a Triton
copy kernel at 2^28 fp32, the larger; the same limit as make bench) and of torch's copy of as
many bytes as the softmax moves.

Run from the repository root: .venv/bin/python content/experiments/t2_clusters.py
"""
import contextlib
import os
import sys
import tempfile
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from triton.testing import do_bench
from drills.bench import copy_bandwidths
from solutions.t2_softmax import softmax_kernel


@contextlib.contextmanager
def stderr_kept(lines: list):
    """MLIR prints a failed pass's error, then the whole module, on stderr, and raises only
    "PassManager::run failed": keep what it printed in `lines`, to show its error lines."""
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as kept:
        os.dup2(kept.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            kept.seek(0)
            lines += kept.read().splitlines()


ROWS, COLS = 1024, 65536
print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}")
limit = max(copy_bandwidths().values())
print(f"copy of 2^28 fp32, the larger of torch's and Triton's: {limit:.0f} GB/s")
for dtype in (torch.float32, torch.float16):
    x = torch.randn(ROWS, COLS, device="cuda", dtype=dtype)
    out = torch.empty_like(x)
    expected = torch.softmax(x.float(), dim=-1)
    moved = 2 * x.numel() * x.element_size()
    copied = torch.empty_like(x)
    same_bytes = moved / do_bench(lambda: copied.copy_(x), return_mode="median") / 1e6
    print(f"\n{dtype} {ROWS}x{COLS}, {moved / 1e6:.0f} MB: a copy of as many bytes {same_bytes:.0f} GB/s")
    for num_ctas in (1, 2, 4):
        for num_warps in (8, 16, 32):
            name = f"num_ctas={num_ctas}, num_warps={num_warps}"
            run = lambda: softmax_kernel[(ROWS,)](x, out, ROWS, COLS, x.stride(0), out.stride(0),
                                                  BLOCK_SIZE=COLS, ROWS_PER_PROGRAM=1,
                                                  num_warps=num_warps, num_ctas=num_ctas)
            printed = []
            try:
                out.zero_()
                with stderr_kept(printed):
                    spills = run().n_spills
            except Exception as e:  # noqa: BLE001 - a config that does not compile is a result
                errors = [line.split("error: ", 1)[1] for line in printed if "error: " in line]
                print(f"  {name}: {type(e).__name__}: {str(e).strip().splitlines()[0][:160]}")
                why = [line for line in printed if "CTAs per CGA" in line]
                for line in errors[:1] + why[:1]:
                    print(f"    {line.strip()[:200]}")
                continue
            error = (out.float() - expected).abs().max().item()
            if error > 1e-3:
                print(f"  {name}: WRONG, max error {error:.3g}")
                continue
            rate = moved / do_bench(run, return_mode="median") / 1e6
            print(f"  {name}, {spills} spills: {rate:.0f} GB/s ({rate / limit:.0%} of the limit,"
                  f" {rate / same_bytes:.0%} of the same bytes' copy)")
