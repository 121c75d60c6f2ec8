"""The bench flushes L2 before each timed call by zeroing 256 MB, as triton.testing.do_bench
does. Zeroing leaves L2 full of written lines, and a kernel that then reads less than L2 holds
may pay for writing them back to memory: the flush's bytes, not its own. This times the same
memory-bound calls after three flushes: zeroing (the bench's), zeroing then reading another
256 MB (L2 left holding clean lines), and none (inputs warm in L2). Needs a GPU.

Run from the repository root: .venv/bin/python content/experiments/bench_flush.py
"""

import statistics
import sys

sys.path.insert(0, ".")  # run from the repository root: solutions/ is a folder of it
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch
import triton

from drills.bench import event_times_ms
from solutions import t1_add, t4_matmul_persistent

FLUSH = 256 * 2**20
dirty = torch.empty(FLUSH, dtype=torch.int8, device="cuda")
clean = torch.ones(FLUSH // 4, dtype=torch.float32, device="cuda")
FLUSHES = {
    "zeroed (the bench's)": lambda: dirty.zero_(),
    "zeroed, then read": lambda: (dirty.zero_(), clean.sum()),
    "none (warm)": lambda: None,
}


def median_us(fn, flush, calls=200) -> float:
    """As the bench times a call (drills/bench.py), with this flush ahead of each call."""
    return statistics.median(event_times_ms(fn, flush, calls)) * 1e3


def cases():
    """(name, call, bytes it must move at least)."""
    a = torch.randn(16, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    moved = 2 * (16 * 4096 * 2 + 4096 * 4096)
    yield "cuBLAS 16x4096x4096", lambda: a @ b, moved
    yield "cuBLAS 16x4096x4096, b = w.t()", lambda: a @ w.t(), moved
    yield "persistent reference 16x4096x4096", lambda: t4_matmul_persistent.matmul(a, b), moved
    yield (
        "persistent reference 16x4096x4096, b = w.t()",
        lambda: t4_matmul_persistent.matmul(a, w.t()),
        moved,
    )
    for n in (2**20, 2**22, 2**24, 2**26):
        x, y = (torch.randn(n, device="cuda") for _ in range(2))
        out = torch.empty_like(x)
        yield f"t1 add 2^{n.bit_length() - 1}", lambda x=x, y=y, o=out: t1_add.add(x, y, o), 12 * n
        yield f"torch copy 2^{n.bit_length() - 1} fp32", lambda x=x, o=out: o.copy_(x), 8 * n


def main() -> None:
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print("microseconds (GB/s) after each flush; median of 200 calls")
    for name, call, moved in cases():
        call()
        line = f"{name:46}"
        for flush_name, flush in FLUSHES.items():
            us = median_us(call, flush)
            line += f" | {flush_name}: {us:7.1f} ({moved / us / 1e3:5.0f})"
        print(line)


if __name__ == "__main__":
    main()
