"""Deep reply: before each of its replies, the runner sends the judge one more message of its
own on the judge's socket (the fd the runner gets in argv), a valid JSON object nesting 400,000
lists, under the size cap. On the grader of commit fbeefee the judge's reader raised
RecursionError on it, the case was reported as "the grader failed", and every later reply was
read one request out of step: the answer to one case was taken for the next one's. The kernel
is right, but no case's reply can be trusted, so none may pass.
"""

ATTACK = "deep reply"
LAYER = "channel"

import socket
import sys

import torch
import triton
import triton.language as tl

DEEP = b'{"ok": true, "result": ' + b"[" * 400_000 + b"]" * 400_000 + b"}"
SHALLOW = b'{"ok": true, "result": ' + b"[" * 900 + b"]" * 900 + b"}"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def judge_socket() -> socket.socket | None:
    for arg in sys.argv[1:]:
        if arg.isdigit():
            try:
                return socket.socket(fileno=int(arg))
            except OSError:
                return None
    return None


CALLS = [0]


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    sock = judge_socket()
    if sock is not None:
        sock.sendmsg([DEEP if CALLS[0] % 2 == 0 else SHALLOW])
        sock.detach()
    CALLS[0] += 1
    out = torch.empty_like(x) if out is None else out
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out
