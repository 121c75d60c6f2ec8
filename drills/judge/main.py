"""The judge's process: `python -B -m drills.judge.main CHANNEL PYTEST_ARGUMENTS...`.

It imports torch and triton (already imported where the grader forked it from its fork
server's image), forks its own fork server (drills/judge/forks.py) from that image, and only
then reads its job from CHANNEL, a socket, until the grader's end is shut: the environment to
run in, which the grader does not put on its command line or in its starting environment (that
image is what every runner is forked from), and the cases an earlier judge of this drill
graded. Then it runs the drill's suite, whose events go back on CHANNEL.
"""

import contextlib
import importlib.metadata
import json
import os
import sys
import threading

from drills import processes
from drills.judge import forks


def main() -> int:
    # before the fork: the server, and every process forked from it, keep these
    processes.guard_this_process()
    processes.first_to_go_when_memory_runs_out()
    forks.load_the_image()
    forks.start()
    processes.end_cleanly_on_signals()  # after the fork: its server keeps the default
    job = json.loads(_read_to_the_end(int(sys.argv[1])))
    os.environ.clear()
    os.environ.update(job["environment"])
    context = _make_the_cuda_context_meanwhile()
    import pytest

    arguments = [*sys.argv[2:], "--drills-graded", json.dumps(job["graded"])]
    return pytest.main(arguments, plugins=[_WaitedFor(context)] if context else [])


def _make_the_cuda_context_meanwhile() -> threading.Thread | None:
    """On a GPU, this process's CUDA context (0.25 s on an H100 host), made in a thread while
    pytest is imported and collects the suite, rather than in the first case's time. After the
    fork server's fork: a CUDA context does not survive one. The variables pytest sets before
    the thread is waited for (_WaitedFor) are set first: adding a variable to the environment
    can move it in memory while CUDA's initialisation reads it, without the GIL."""
    from drills import runtime

    if runtime.interpreter_requested():
        return None
    os.environ["PYTEST_VERSION"] = importlib.metadata.version("pytest")  # pytest.main sets it

    def make() -> None:
        import torch

        # a failure here is the first case's to meet and report, as it would without this
        with contextlib.suppress(Exception):
            torch.empty(1, device="cuda")

    thread = threading.Thread(target=make, daemon=True)
    thread.start()
    return thread


class _WaitedFor:
    """A pytest plugin: the CUDA context's thread is waited for once the suite is collected,
    before pytest's first case sets a variable of its own (PYTEST_CURRENT_TEST)."""

    def __init__(self, thread: threading.Thread):
        self.thread = thread

    def pytest_collection_finish(self, session) -> None:
        self.thread.join()


def _read_to_the_end(fd: int) -> bytes:
    """What comes in on `fd` until its other end stops sending; `fd` stays open."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # every result is in the events pipe, and every process this one started is ended: what
    # is left is unloading torch, which takes a second
    os._exit(code)
