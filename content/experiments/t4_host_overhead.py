"""t4, notes §4: how much of a small product's time is Python on the host? Needs a GPU. This is
the script, as it ran, behind the numbers in content/t4_notes.md.

For each shape, the drill's reference matmul (solutions/t4_matmul.py), the benchmark's reference
matmul (solutions/t4_matmul_persistent.py, which launches a compiled kernel directly after the
first call for a shape), both with out given, and cuBLAS:
  host us    wall-clock time per call over 200 calls in a row, synchronised once at the end: the
             host's cost of a call when that is longer than the kernel, else the kernel's time
  bench us   triton.testing.do_bench median, L2 flushed before each call (what make bench uses)
  graph us   triton.testing.do_bench_cudagraph median: the same calls replayed from a CUDA graph,
             so with no host work between them (and no L2 flush)

Run from the repository root: python3 content/experiments/t4_host_overhead.py
"""
import sys, time
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch
from triton.testing import do_bench, do_bench_cudagraph
from solutions.t4_matmul import matmul as drill_matmul
from solutions.t4_matmul_persistent import matmul as bench_matmul


def host_us(fn, calls=200):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


print("shape: host / bench / graph us for the drill's reference | the benchmark's | cuBLAS; "
      "cuBLAS time / reference time by bench and graph, drill's and benchmark's")
for M, N, K, b_t in [(16, 256, 256, False), (16, 4096, 4096, False), (1000, 3000, 2000, False), (4096, 4096, 512, False), (4096, 4096, 4096, False),
                     (4096, 4096, 4096, True)]:
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(N, K, device="cuda", dtype=torch.float16).t() if b_t else torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    contenders = (lambda: drill_matmul(a, b, c)), (lambda: bench_matmul(a, b, c)), (lambda: torch.matmul(a, b, out=c))
    rows = []
    for fn in contenders:
        fn()  # autotune before any timing or capture
        rows.append((host_us(fn), do_bench(fn, return_mode="median") * 1e3, do_bench_cudagraph(fn, return_mode="median") * 1e3))
    times = " | ".join(" / ".join(f"{t:.0f}" for t in row) for row in rows)
    (_, db, dg), (_, bb, bg), (_, cb, cg) = rows
    print(f"{M}x{N}x{K}{', w.t()' if b_t else ''}: {times} | {cb / db:.2f}, {cg / dg:.2f}; {cb / bb:.2f}, {cg / bg:.2f}", flush=True)
