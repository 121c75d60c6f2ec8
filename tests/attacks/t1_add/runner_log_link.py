"""Runner log link: the judge of commit fbeefee kept a runner's output in output.log, in the
runner's own folder, and read its last lines when the runner died, to show them as feedback.
This file replaces that log with a symbolic link to the reference solution (the checkout is
found through /proc/self/mountinfo or the judge's working directory) and crashes: the judge
read the link and put solutions/t1_add.py into the feedback that every export shows.
The kernel adds nothing.
"""

ATTACK = "runner log link"
LAYER = "files"
SHOWS_NOTHING_OF = "solutions/t1_add.py"

import os

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass


def repository() -> str | None:
    """The checkout: the folder above a hidden solutions/ or tests/ mount, or the judge's cwd."""
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                point = line.split()[4]
                if point.endswith(("/solutions", "/tests")):
                    return os.path.dirname(point)
    except OSError:
        pass
    try:
        return os.readlink(f"/proc/{os.getppid()}/cwd")
    except OSError:
        return None


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    root = repository()
    if root:
        for name in ("output.log", "log", "stdout"):
            if os.path.lexists(name):
                os.unlink(name)
            os.symlink(os.path.join(root, "solutions", "t1_add.py"), name)
    os._exit(1)
