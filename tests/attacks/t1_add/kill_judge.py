"""Kill the judge: on the first call, SIGKILL the parent process and every further ancestor
that runs grader.py, runner.py or judge.py or streams --drills-events, then exit 0. If the
grader counted missing results as passes, or lost the drill's result altogether, that would be
a forgery (or a way to hide a failing grade).

On the grader of commit de3289e: grader.py itself is the parent; it dies, no score and no JSON
are written at all (the JSON/Gradescope files are missing): nothing forged, nothing reported.
"""

ATTACK = "kill the judge"
LAYER = "processes"

import os
import signal

import torch
import triton
import triton.language as tl


def _ancestors():
    pid = os.getpid()
    for _ in range(6):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                yield pid, [a.decode(errors="replace") for a in f.read().split(b"\0")]
        except (OSError, ValueError, IndexError):
            return


def _kill_the_judge() -> None:
    for depth, (pid, argv) in enumerate(_ancestors()):
        program = os.path.basename(argv[1]) if len(argv) > 1 else ""
        named = program in ("grader.py", "runner.py", "judge.py") or any(
            a.startswith("--drills-events") for a in argv
        )
        if pid <= 1 or (depth > 0 and not named):
            break
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    _kill_the_judge()
    os._exit(0)
