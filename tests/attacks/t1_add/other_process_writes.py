"""Another process does the work: add() reads the bytes of x and y through /proc/self/mem
(os.pread at x.data_ptr()), has a helper process (the Python binary, /proc/self/exe -I -c,
stdlib only: struct) add them, and writes the reply into out with os.pwrite on /proc/self/mem.
No torch op, no numpy, no ctypes and no `open` in this process; the values are right. Beside a
launch of a kernel that does nothing. (With a judge's shared memory, the write lands in the
judge's buffer just the same.)

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "another process writes the answer"
LAYER = "kernels"

import os
import subprocess

import torch
import triton
import triton.language as tl

HELPER = r"""
import struct, sys
read, write = sys.stdin.buffer, sys.stdout.buffer
while line := read.readline():
    code, n = line.decode().split()
    n, size = int(n), struct.calcsize(code)
    a = struct.unpack(f"{n}{code}", read.read(n * size))
    b = struct.unpack(f"{n}{code}", read.read(n * size))
    write.write(struct.pack(f"{n}{code}", *(p + q for p, q in zip(a, b))))
    write.flush()
"""
CODES = {torch.float32: "f", torch.float16: "e", torch.int32: "i", torch.float64: "d"}
_helper = []


def _ask(code: str, n: int, a: bytes, b: bytes) -> bytes:
    if not _helper:
        _helper.append(
            subprocess.Popen(
                ["/proc/self/exe", "-I", "-c", HELPER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
        )
    helper = _helper[0]
    helper.stdin.write(f"{code} {n}\n".encode() + a + b)
    helper.stdin.flush()
    return helper.stdout.read(len(a))


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    size = x.numel() * x.element_size()
    mem = os.open("/proc/self/mem", os.O_RDWR)
    try:
        a, b = os.pread(mem, size, x.data_ptr()), os.pread(mem, size, y.data_ptr())
        os.pwrite(mem, _ask(CODES[x.dtype], x.numel(), a, b), out.data_ptr())
    finally:
        os.close(mem)
    return out
