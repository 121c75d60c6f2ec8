"""t2, notes "Rows split across programs": can a row too long for one program's registers be
shared by several programs, each holding its part of the row in registers, so that x is read
once and the result written once? Needs a GPU. Output: t2_split_rows.out.

Each of SPLIT programs of a row loads its CHUNK of the row, reduces it to a max and a sum of
exponentials, publishes the two, and waits until every program of its row has published
(polling the count with atomics, or with plain loads and one atomic at the end). Then
each combines the SPLIT pairs into the row's max and sum and writes its part of the result from
the values it still holds. The wait needs every program of a row on the GPU at once: a row's
programs are neighbours in the grid, which the GPU starts in order, so a program waits only on
programs that started or will start while it waits (a grid started out of order could hang).

Beside it: the reference kernel at its own launch, and the copy limit measured two ways at the
row's size and at 2^28 fp32 (torch's copy and a Triton copy kernel).

Run from the repository root: .venv/bin/python content/experiments/t2_split_rows.py
"""
import itertools
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
import triton.language as tl
from triton.testing import do_bench
from solutions.t2_softmax import softmax as reference


@triton.jit
def split_row_kernel(x_ptr, out_ptr, max_ptr, sum_ptr, arrived_ptr, left_ptr, n_cols, sx, so,
                     SPLIT: tl.constexpr, CHUNK: tl.constexpr, HOLD_AS_LOADED: tl.constexpr,
                     SPIN_ON_LOADS: tl.constexpr):
    row = tl.program_id(0) // SPLIT
    part = tl.program_id(0) % SPLIT
    cols = part * CHUNK + tl.arange(0, CHUNK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row.to(tl.int64) * sx + cols, mask=mask, other=-float("inf"))
    if not HOLD_AS_LOADED:  # fp16 held as fp32 takes twice the registers
        x = x.to(tl.float32)
    part_max = tl.max(x, axis=0).to(tl.float32)
    tl.store(max_ptr + row * SPLIT + part, part_max)
    tl.store(sum_ptr + row * SPLIT + part, tl.sum(tl.exp(x.to(tl.float32) - part_max), axis=0))
    # release: the two stores above are seen by whoever sees this count
    arrived = tl.atomic_add(arrived_ptr + row, 1, sem="release") + 1
    if SPIN_ON_LOADS:  # plain loads while waiting, one atomic to acquire at the end
        while arrived < SPLIT:
            arrived = tl.load(arrived_ptr + row, volatile=True)
        tl.atomic_add(arrived_ptr + row, 0, sem="acquire")
    else:  # an atomic at every turn: each goes to L2's atomic unit
        while arrived < SPLIT:
            arrived = tl.atomic_add(arrived_ptr + row, 0, sem="acquire")
    parts = row * SPLIT + tl.arange(0, SPLIT)
    maxes = tl.load(max_ptr + parts, cache_modifier=".cg")  # from L2, where the others wrote
    sums = tl.load(sum_ptr + parts, cache_modifier=".cg")
    row_max = tl.max(maxes, axis=0)
    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)
    y = tl.exp(x.to(tl.float32) - row_max) / row_sum
    tl.store(out_ptr + row.to(tl.int64) * so + cols, y.to(out_ptr.dtype.element_ty), mask=mask)
    # the last program of the row to leave sets both counts back to 0 for the next launch
    if tl.atomic_add(left_ptr + row, 1) == SPLIT - 1:
        tl.store(arrived_ptr + row, 0)
        tl.store(left_ptr + row, 0)


COUNTS = {}


def split_softmax(x, out, split, warps, hold_as_loaded=False, spin_on_loads=False):
    n_rows, n_cols = x.shape
    chunk = triton.next_power_of_2(triton.cdiv(n_cols, split))
    if (x.device, n_rows) not in COUNTS:
        COUNTS[x.device, n_rows] = torch.zeros(2, n_rows, dtype=torch.int32, device=x.device)
    arrived, left = COUNTS[x.device, n_rows]
    maxes = torch.empty(n_rows * split, dtype=torch.float32, device=x.device)
    sums = torch.empty_like(maxes)
    split_row_kernel[(n_rows * split,)](x, out, maxes, sums, arrived, left, n_cols, x.stride(0),
                                        out.stride(0), SPLIT=split, CHUNK=chunk, HOLD_AS_LOADED=hold_as_loaded,
                                        SPIN_ON_LOADS=spin_on_loads, num_warps=warps)
    return out


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def ms(fn):
    return do_bench(fn, return_mode="median")


def copy_limits(numel, dtype):
    """GB/s (read + write) of torch's copy and of a Triton copy kernel over numel elements."""
    x = torch.randn(numel, device="cuda").to(dtype)
    y = torch.empty_like(x)
    gb = 2 * x.numel() * x.element_size() / 1e6
    triton_copy = lambda: copy_kernel[(triton.cdiv(numel, 4096),)](x, y, numel, BLOCK=4096, num_warps=8)
    triton_copy()
    assert torch.equal(x, y)
    return gb / ms(lambda: y.copy_(x)), gb / ms(triton_copy)


print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}")
torch_limit, triton_limit = copy_limits(2**28, torch.float32)
limit = max(torch_limit, triton_limit)
print(f"copy of 2^28 fp32: torch {torch_limit:.0f} GB/s, Triton {triton_limit:.0f} GB/s; limit {limit:.0f}")

SHAPES = [(torch.float32, 1024, 65536), (torch.float16, 1024, 65536), (torch.float16, 4096, 4096),
          (torch.float32, 4096, 16384), (torch.float16, 4096, 16384)]
for dtype, n_rows, n_cols in SHAPES:
    x = torch.randn(n_rows, n_cols, device="cuda", dtype=dtype)
    out = torch.empty_like(x)
    gb = 2 * x.numel() * x.element_size() / 1e6
    expected = torch.softmax(x.double(), dim=-1).to(dtype)
    same_size = copy_limits(x.numel(), dtype)
    print(f"\n{str(dtype)[6:]} {n_rows}x{n_cols}, {gb:.0f} MB: copy of as many bytes torch "
          f"{same_size[0]:.0f}, Triton {same_size[1]:.0f} GB/s")
    runs = {"torch.softmax": lambda: torch.softmax(x, dim=-1), "reference": lambda: reference(x, out)}
    holds = (False, True) if dtype == torch.float16 else (False,)
    for split, warps, hold, spin in itertools.product((2, 4, 8, 16), (4, 8, 16), holds, (False, True)):
        if n_cols // split < 1024:
            continue
        name = (f"split {split}, {warps} warps" + (", held as fp16" if hold else "")
                + (", waits on loads" if spin else ""))
        run = lambda s=split, w=warps, h=hold, p=spin: split_softmax(x, out, s, w, h, p)
        run()
        run()  # the second launch finds the counts the first set back
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
