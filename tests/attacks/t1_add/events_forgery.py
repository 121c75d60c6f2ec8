"""Events forgery: at import, find the grader's result channel and write a full score into it,
then leave with os._exit(0) before any case runs.

Channels tried: the `--drills-events PATH` of this process's or its parent's command line, any
file named like "events" in a directory holding a file that this process or its parent has
open (the grade-* temporary directory of today's grader: the child's stdout log is there), and
every writable pipe or /tmp file open in this process or its parent (/proc/<pid>/fd/*). A file
that already holds a "collected" event is rewritten: the same items, each with a "start" and a
"passed" result; elsewhere the forged lines are appended, with invented node ids and points.
(No blind glob of /tmp/grade-*: that would forge the results of unrelated gradings running at
the same time, e.g. the repo's other tests under pytest -n auto.)

Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "events forgery"
LAYER = "channel"

import json
import os
import stat

import torch
import triton
import triton.language as tl


def _safe(path: str) -> bool:
    """Never write outside /tmp (the catalogue's throwaway copies and grader temp files)."""
    real = os.path.realpath(path)
    return real.startswith("/tmp/") and "/.venv" not in real


def _argv(pid: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0")]
    except OSError:
        return []


def _open_files(pid: str) -> list[str]:
    found = []
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return found
    for fd in fds:
        try:
            found.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return found


def _channels() -> tuple[set[str], set[str]]:
    """(files to rewrite, /proc fd paths to append to)."""
    files, fds = set(), set()
    for pid in ("self", str(os.getppid())):
        args = _argv(pid)
        for i, arg in enumerate(args):
            if arg == "--drills-events" and i + 1 < len(args):
                files.add(args[i + 1])
            elif arg.startswith("--drills-events="):
                files.add(arg.split("=", 1)[1])
        for target in _open_files(pid):
            if target.startswith("/tmp/") and os.path.isfile(target):
                folder = os.path.dirname(target)
                files.update(
                    os.path.join(folder, n) for n in os.listdir(folder) if "event" in n.lower()
                )
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                fds.add(f"/proc/{pid}/fd/{fd}")
        except OSError:
            pass
    return {f for f in files if _safe(f)}, fds


def _forged(lines: list[str]) -> list[dict]:
    items = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("event") == "collected":
            items = event["items"]
            break
    if not items:  # invent them
        items = [
            {"nodeid": f"tests/test_t1_add.py::test_{i}", "check": f"c{i}", "points": 100}
            for i in range(3)
        ]
    events = [{"event": "collected", "items": items}]
    for item in items:
        events.append({"event": "start", "nodeid": item["nodeid"]})
        events.append(
            {
                "event": "result",
                "nodeid": item["nodeid"],
                "check": item["check"],
                "points": item["points"],
                "case": "",
                "outcome": "passed",
                "kind": "",
                "message": "",
            }
        )
    return events


def _forge() -> None:
    files, fds = _channels()
    done = set()
    for path in files:
        try:
            with open(path) as f:
                lines = f.read().splitlines()
            text = "".join(json.dumps(e) + "\n" for e in _forged(lines))
            with open(path, "w") as f:
                f.write(text)
            done.add(os.path.realpath(path))
        except OSError:
            pass
    text = "".join(json.dumps(e) + "\n" for e in _forged([])).encode()
    for fd_path in fds:
        try:
            target = os.readlink(fd_path)
            if target.startswith("pipe:"):
                pass
            elif not (_safe(target) and os.path.isfile(target)) or target in done:
                continue
            fd = os.open(fd_path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode) or os.path.isfile(target):
                    os.write(fd, text)
            finally:
                os.close(fd)
        except OSError:
            pass


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out


_forge()
os._exit(0)
