"""t2, notes "Reaching the bandwidth limit": which launch reaches 80% of the copy bandwidth on the
shapes where the reference did not (fp32 1024 x 65536; fp16 4096 x 4096, 4096 x 16384 and
1024 x 65536)? Needs a GPU. This is the script, as it ran, behind the numbers in
content/t2_notes.md; its output is in t2_bandwidth_sweep.out.

Four families, each checked against torch.softmax before it is timed:
  whole row    the reference's kernel, one row per program, num_warps 4 to 32 (and, at 4096
               columns or fewer, 2 or 4 rows per program with 4 or 8 warps)
  row loop     a fixed number of programs per SM, each looping over rows with tl.range, whose
               num_stages lets the compiler load the next row while this one is reduced
  two reads    rows read in chunks twice: an online max and sum, then the normalised write
  two reads, L2   the same from a fixed number of programs per SM, each looping over rows, so
               that the rows in flight fit in L2 and the second read comes from there

Run from the repository root: .venv/bin/python content/experiments/t2_bandwidth_sweep.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
import triton.language as tl
from triton.testing import do_bench
from solutions.t2_softmax import softmax_kernel


@triton.jit
def row_loop_kernel(x_ptr, out_ptr, n_rows, n_cols, sx, so, BLOCK_SIZE: tl.constexpr, NUM_STAGES: tl.constexpr):
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=NUM_STAGES):
        x = tl.load(x_ptr + row.to(tl.int64) * sx + cols, mask=mask, other=-float("inf")).to(tl.float32)
        num = tl.exp(x - tl.max(x, axis=0))
        y = num / tl.sum(num, axis=0)
        tl.store(out_ptr + row.to(tl.int64) * so + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def two_reads_kernel(x_ptr, out_ptr, n_cols, sx, so, CHUNK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, CHUNK)
    m = tl.full((CHUNK,), -float("inf"), tl.float32)
    s = tl.zeros((CHUNK,), tl.float32)
    for start in range(0, n_cols, CHUNK):
        x = tl.load(x_ptr + row * sx + start + cols, mask=start + cols < n_cols, other=-float("inf")).to(tl.float32)
        new_m = tl.maximum(m, x)
        s = s * tl.exp(m - new_m) + tl.exp(x - new_m)
        m = new_m
    row_max = tl.max(m, axis=0)
    denom = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, CHUNK):
        x = tl.load(x_ptr + row * sx + start + cols, mask=start + cols < n_cols, other=-float("inf")).to(tl.float32)
        y = tl.exp(x - row_max) / denom
        tl.store(out_ptr + row * so + start + cols, y.to(out_ptr.dtype.element_ty), mask=start + cols < n_cols)


@triton.jit
def two_reads_l2_kernel(x_ptr, out_ptr, n_rows, n_cols, sx, so, CHUNK: tl.constexpr, NUM_STAGES: tl.constexpr):
    cols = tl.arange(0, CHUNK)
    for row in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        x_row = x_ptr + row.to(tl.int64) * sx
        out_row = out_ptr + row.to(tl.int64) * so
        m = tl.full((CHUNK,), -float("inf"), tl.float32)
        s = tl.zeros((CHUNK,), tl.float32)
        for start in tl.range(0, n_cols, CHUNK, num_stages=NUM_STAGES):
            x = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf")).to(tl.float32)
            new_m = tl.maximum(m, x)
            s = s * tl.exp(m - new_m) + tl.exp(x - new_m)
            m = new_m
        row_max = tl.max(m, axis=0)
        denom = tl.sum(s * tl.exp(m - row_max), axis=0)
        for start in tl.range(0, n_cols, CHUNK, num_stages=NUM_STAGES):
            x = tl.load(x_row + start + cols, mask=start + cols < n_cols, other=-float("inf")).to(tl.float32)
            y = tl.exp(x - row_max) / denom
            tl.store(out_row + start + cols, y.to(out_ptr.dtype.element_ty), mask=start + cols < n_cols)


def copy_gbs():
    x = torch.empty(2**28, device="cuda"); y = torch.empty_like(x)
    return 2 * x.numel() * 4 / do_bench(lambda: y.copy_(x), return_mode="median") / 1e6


def variants(x, out):
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for w in (4, 8, 16, 32):
        yield f"whole row, {w} warps", lambda w=w: softmax_kernel[(rows,)](
            x, out, rows, cols, x.stride(0), out.stride(0), BLOCK_SIZE=block, ROWS_PER_PROGRAM=1, num_warps=w)
    if block <= 4096:
        for per_program in (2, 4):
            for w in (4, 8):
                yield f"whole rows, {per_program} per program, {w} warps", lambda r=per_program, w=w: softmax_kernel[(triton.cdiv(rows, r),)](
                    x, out, rows, cols, x.stride(0), out.stride(0), BLOCK_SIZE=block, ROWS_PER_PROGRAM=r, num_warps=w)
    for w in (4, 8, 16):
        for stages in (2, 3):
            if block * x.element_size() * stages > 200 * 1024:
                continue  # the staged rows would not fit in shared memory
            for per_sm in (1, 2, 4):
                grid = (min(rows, sms * per_sm),)
                yield f"row loop, {w} warps, {stages} stages, {per_sm}/SM", lambda w=w, s=stages, g=grid: row_loop_kernel[g](
                    x, out, rows, cols, x.stride(0), out.stride(0), BLOCK_SIZE=block, NUM_STAGES=s, num_warps=w)
    if cols >= 16384:
        for chunk in (2048, 4096, 8192):
            for w in (4, 8):
                yield f"two reads, chunk {chunk}, {w} warps", lambda c=chunk, w=w: two_reads_kernel[(rows,)](
                    x, out, cols, x.stride(0), out.stride(0), CHUNK=c, num_warps=w)
        for chunk in (4096, 8192):
            for w in (8, 16):
                for per_sm in (1, 2):
                    grid = (min(rows, sms * per_sm),)
                    yield f"two reads, L2, chunk {chunk}, {w} warps, {per_sm}/SM", lambda c=chunk, w=w, g=grid: two_reads_l2_kernel[g](
                        x, out, rows, cols, x.stride(0), out.stride(0), CHUNK=c, NUM_STAGES=3, num_warps=w)


limit = copy_gbs()
print(f"copy bandwidth {limit:.0f} GB/s (2^28 fp32, read + write)")
for dtype, rows, cols in [(torch.float32, 4096, 4096), (torch.float32, 4096, 16384), (torch.float32, 1024, 65536),
                          (torch.float16, 4096, 4096), (torch.float16, 4096, 16384), (torch.float16, 1024, 65536)]:
    torch.manual_seed(0)
    x = torch.randn(rows, cols, device="cuda", dtype=dtype); out = torch.empty_like(x)
    expected = torch.softmax(x.float(), dim=-1)
    gbs = lambda ms: 2 * x.numel() * x.element_size() / ms / 1e6
    print(f"\n{str(dtype)[6:]} {rows}x{cols}: torch.softmax {gbs(do_bench(lambda: torch.softmax(x, dim=-1), return_mode='median')):.0f} GB/s", flush=True)
    results = []
    for name, fn in variants(x, out):
        try:
            out.zero_(); fn()
            err = (out.float() - expected).abs().max().item()
            if err > 1e-2 * expected.max().item():
                print(f"  {name}: WRONG (max error {err:.3g})"); continue
            rate = gbs(do_bench(fn, return_mode="median"))
        except Exception as e:
            print(f"  {name}: {type(e).__name__}: {str(e).splitlines()[0][:100]}"); continue
        results.append((rate, name))
        print(f"  {name}: {rate:.0f} GB/s ({rate / limit:.0%})", flush=True)
    best = max(results)
    print(f"  best: {best[1]}: {best[0]:.0f} GB/s ({best[0] / limit:.0%})", flush=True)
