"""Processes the grader starts, and making sure none outlives it (Linux; elsewhere, best effort).

A learner's code can fork, start a new session and outlive its parent. The judge and the grader
make themselves child subreapers, so such orphans stay their descendants, and kill every
descendant when they are done. They also make themselves non-dumpable, so that a process of the
same user cannot read or write their memory or open their file descriptors through /proc.
"""

import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from drills import resources

_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def guard_this_process() -> None:
    """Keep orphans of our children as our descendants, and our memory and fds to ourselves."""
    become_subreaper()
    _prctl(_PR_SET_DUMPABLE, 0)


def become_subreaper() -> None:
    """Orphans below this process become its children, not init's: it can wait for them."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def first_to_go_when_memory_runs_out() -> None:
    """Make this process, and every process it starts, the kernel's first choice when memory
    runs out (a cgroup limit, a small machine): a judge or a runner is killed, and reported as
    such, rather than the grader, which must still write every drill's result."""
    with contextlib.suppress(OSError):
        Path("/proc/self/oom_score_adj").write_text("1000")


_stopping = threading.Event()
_starting = threading.Lock()


class Stopping(Exception):
    """Grading is being stopped: no process may start any more."""


@contextlib.contextmanager
def starting():
    """Held by a thread while it starts a process: stop_all() waits for it, and once stop_all()
    has begun no process starts, so none can appear after its last sweep."""
    with _starting:
        if _stopping.is_set():
            raise Stopping
        yield


def stop_all(grace: float = 0.0) -> None:
    """Kill every descendant, once no thread can start another (Ctrl-C, SIGTERM). With `grace`,
    each is first asked to end (SIGTERM) and given up to `grace` seconds: a judge then removes
    its scratch folders, which hold copies of the learner's file (remove_on_stop)."""
    with _starting:
        _stopping.set()
    if grace:
        for pid in descendants():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        while descendants() and time.monotonic() < deadline:
            _reap()
            time.sleep(0.02)
    kill_descendants()


# Scratch folders of this process to remove if it is stopped before it removes them itself.
_scratch: set[str] = set()


def remove_on_stop(folder: str | Path) -> None:
    _scratch.add(str(folder))


@contextlib.contextmanager
def scratch_folder(prefix: str) -> Iterator[str]:
    """A temporary folder, removed at the end of the block, or by remove_scratch() if this
    process is stopped first."""
    folder = tempfile.mkdtemp(prefix=prefix)
    remove_on_stop(folder)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # unlinks links, never follows them
        removed(folder)


def removed(folder: str | Path) -> None:
    """`folder` was removed by its owner: no stop need remove it."""
    _scratch.discard(str(folder))


def remove_scratch() -> None:
    """Remove every folder remove_on_stop() was given and not told removed: a process that is
    stopped (Ctrl-C, SIGTERM) leaves no copy of a learner's file behind."""
    for folder in list(_scratch):
        shutil.rmtree(folder, ignore_errors=True)  # unlinks links, never follows them
        _scratch.discard(folder)


def end_cleanly_on_signals() -> None:
    """SIGTERM or SIGINT ends this process (a judge) at once, after killing every process it
    started and removing its scratch folders: the grader stops its judges this way."""

    def end(signum, frame):
        kill_descendants()
        remove_scratch()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, end)
    signal.signal(signal.SIGINT, end)


def descendants(root: int | None = None, spare: tuple[int, ...] = ()) -> list[int]:
    """Every process below `root` (default: this one), from /proc, but those in `spare` and
    below them."""
    root = os.getpid() if root is None else root
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: ppid follows the last ')'
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child in spare:
                continue
            found.append(child)
            todo.append(child)
    return found


def kill_descendants(root: int | None = None, spare: tuple[int, ...] = ()) -> None:
    """SIGKILL every descendant but those in `spare` and below them, until none is left (a
    forking loop gets a few rounds)."""
    for _ in range(20):
        pids = descendants(root, spare)
        if not pids:
            return
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap()
        time.sleep(0.01)


# Exit statuses _reap collected, by pid: one may be a process a Forked handle waits for.
reaped: dict[int, int] = {}


def _reap() -> None:
    """Collect exit statuses of orphans re-parented to us (we are their subreaper)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        reaped[pid] = status


def kill_tree(process: subprocess.Popen) -> None:
    """Kill a child, its process group and everything below it, and wait for it."""
    signal_tree(process)
    process.wait()


def signal_tree(process: subprocess.Popen) -> None:
    """SIGKILL a child, its process group and everything below it, without waiting: a process
    with a CUDA context takes a tenth of a second or more to end, and several can end at once."""
    below = descendants(process.pid)
    for pid in [process.pid, *below]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


# How a signal ends a learner's process: what happened, and what to do about it.
_SIGNALS = {
    "SIGSEGV": (
        "the process crashed with a segmentation fault (SIGSEGV).",
        (
            "Host code that reads memory it does not own (ctypes, an address from data_ptr() "
            "read on the CPU) does this; the interpreter refuses a kernel's load or store "
            "outside its tensors before it is made. Check what your host code reads, and your "
            "masks and offsets."
        ),
    ),
    "SIGABRT": (
        "the process aborted (SIGABRT).",
        (
            "This is usually memory corrupted earlier, by host code that wrote where it should "
            "not (ctypes), or a library that gave up: check what your host code writes."
        ),
    ),
    "SIGXCPU": ("the process used up its CPU time limit (SIGXCPU).", ""),
}


def death(returncode: int | None) -> str:
    """How a process ended, in words a learner can act on."""
    return " ".join(part for part in death_parts(returncode) if part)


def death_parts(returncode: int | None) -> tuple[str, str]:
    """How a process ended, and what to do about it ("" when there is nothing particular)."""
    if returncode is None:
        return "the process did not end.", ""
    if returncode >= 0:
        return f"the process exited with status {returncode}.", ""
    name = signal.Signals(-returncode).name
    if name == "SIGKILL":
        return (
            "the process was killed (SIGKILL).",
            f"Unless your code killed it, the kernel did, because {_out_of_memory()}.",
        )
    return _SIGNALS.get(name, (f"the process was killed by {name}.", ""))


def _out_of_memory() -> str:
    """Why the kernel kills a process: memory ran out, and how much this machine gives."""
    limit = resources.memory_limit()
    if limit is None:
        return "the machine ran out of memory"
    return f"memory ran out: this machine gives the grader {limit >> 20} MB"
