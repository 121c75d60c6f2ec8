"""t2, notes "Rows split across programs": a long row without a split, read twice by one
program, the second read served by L2. Needs a GPU. Output: t2_reread_rows.out.

The split reference (solutions/t2_softmax_split.py) reads x once but makes a row's programs wait
for each other; in fp16 at 1024 x 65536 it stayed near three quarters of the copy bandwidth. Here
one program takes a whole row in chunks twice: a first pass keeps a running max and sum of
exponentials, a second reads the row again and writes the result. A row is 128 KB in fp16 and
256 KB in fp32, and a GPU holds one or two programs per SM at once: the rows in flight fit in L2
(50 MB on an H100), so the second read can come from L2 and HBM sees one read and one write. The
first pass asks L2 to keep what it read (evict_last); the second asks it to drop it (evict_first).

Beside them: the split reference at its own launch, torch.softmax, and the copy limit measured at
2^28 fp32 and at the row's size (the larger of torch's copy and a Triton copy kernel).

Run from the repository root: .venv/bin/python content/experiments/t2_reread_rows.py
"""
import itertools
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
import triton.language as tl
from triton.testing import do_bench
from solutions.t2_softmax_split import softmax as split_reference


@triton.jit
def reread_row_kernel(x_ptr, out_ptr, n_cols, sx, so, CHUNK: tl.constexpr, HINTS: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * sx
    out_row = out_ptr + row.to(tl.int64) * so
    row_max = -float("inf")
    row_sum = 0.0
    for start in range(0, n_cols, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"),
                    eviction_policy="evict_last" if HINTS else "").to(tl.float32)
        new_max = tl.maximum(row_max, tl.max(x, axis=0))
        row_sum = row_sum * tl.exp(row_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        row_max = new_max
    for start in range(0, n_cols, CHUNK):
        cols = start + tl.arange(0, CHUNK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf"),
                    eviction_policy="evict_first" if HINTS else "").to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


def reread_softmax(x, out, chunk, warps, hints):
    reread_row_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), out.stride(0), CHUNK=chunk,
                                     HINTS=hints, num_warps=warps)
    return out


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def ms(fn):
    return do_bench(fn, return_mode="median")


def copy_limit(numel, dtype):
    """GB/s (read + write) of the faster of torch's copy and a Triton copy kernel."""
    x = torch.randn(numel, device="cuda").to(dtype)
    y = torch.empty_like(x)
    gb = 2 * x.numel() * x.element_size() / 1e6
    triton_copy = lambda: copy_kernel[(triton.cdiv(numel, 4096),)](x, y, numel, BLOCK=4096, num_warps=8)
    triton_copy()
    assert torch.equal(x, y)
    return max(gb / ms(lambda: y.copy_(x)), gb / ms(triton_copy))


print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
limit = copy_limit(2**28, torch.float32)
print(f"copy of 2^28 fp32: {limit:.0f} GB/s")

SHAPES = [(torch.float16, 1024, 65536), (torch.float32, 1024, 65536), (torch.float16, 4096, 16384)]
for dtype, n_rows, n_cols in SHAPES:
    x = torch.randn(n_rows, n_cols, device="cuda", dtype=dtype)
    out = torch.empty_like(x)
    gb = 2 * x.numel() * x.element_size() / 1e6
    expected = torch.softmax(x.double(), dim=-1).to(dtype)
    print(f"\n{str(dtype)[6:]} {n_rows}x{n_cols}, {gb:.0f} MB: copy of as many bytes "
          f"{copy_limit(x.numel(), dtype):.0f} GB/s")
    runs = {"torch.softmax": lambda: torch.softmax(x, dim=-1),
            "split reference": lambda: split_reference(x, out)}
    for chunk, warps, hints in itertools.product((2048, 4096, 8192), (4, 8, 16), (True, False)):
        name = f"reread, chunks of {chunk}, {warps} warps" + (", eviction hints" if hints else "")
        run = lambda c=chunk, w=warps, h=hints: reread_softmax(x, out, c, w, h)
        run()
        error = (out.float() - expected.float()).abs().max().item()
        if error > 1e-3:
            print(f"  {name}: WRONG, max error {error}")
            continue
        runs[name] = run
    rounds = {name: [] for name in runs}
    for _ in range(3):
        for name, run in runs.items():
            rounds[name].append(ms(run))
    for name, seen in rounds.items():
        rate = gb / sorted(seen)[1]
        print(f"  {name}: {rate:.0f} GB/s ({rate / limit:.0%})")
