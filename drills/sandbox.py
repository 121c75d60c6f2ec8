"""`grader.py --sandbox`: what an instructor's deployment adds around the runners.

Every runner already runs, where the machine allows it, in namespaces of its own (see
drills.judge.remote.confinement: no view of other processes, a read-only repository without
solutions/ and tests/, no capabilities). The sandbox adds:

- When the grader runs as root, runners run as an unprivileged user (nobody), and solutions/
  and tests/ are readable by their owner only while grading (for machines without namespaces).
  On a GPU too: a runner holds only stand-ins of its own, so it shares no GPU memory with the
  judge (the judge's executor, which does, stays the judge's user).
- Limits on CPU time and process count (no address-space limit: CUDA maps a great deal of it).
- When grading ends, every process of that user is killed: nothing outlives the grader.

Where a protection is not available, `Confinement.notes` says which and why, and grading goes
on without it.
"""

import os
import pwd
import subprocess
import sys
from dataclasses import dataclass, field

from drills import catalog

RUNNER_USER = "nobody"
HIDDEN = ("solutions", "tests")  # what a runner must not read
MAX_PROCESSES = 4096  # per user, threads included: torch starts one per core


@dataclass
class Confinement:
    user: tuple[int, int] | None = None  # (uid, gid) runners run as
    notes: list[str] = field(default_factory=list)
    _modes: dict[str, int] = field(default_factory=dict)

    def runner_settings(self, drill_limit: float) -> dict:
        """What the judge passes on to its runners (drills.judge.remote.Sandbox)."""
        return {
            "user": list(self.user) if self.user else None,
            "cpu_seconds": int(drill_limit * 4),  # CPU seconds: several threads count at once
            "processes": MAX_PROCESSES if self.user else None,
        }

    def summary(self) -> str:
        who = (
            f"runners run as {RUNNER_USER} (uid {self.user[0]})"
            if self.user
            else ("runners run as this user")
        )
        return (
            "sandbox: "
            + who
            + ", with limits"
            + ("; " + "; ".join(self.notes) if self.notes else "")
        )

    def hide_sources(self) -> None:
        for name in HIDDEN:
            path = catalog.ROOT / name
            if not path.exists():  # a course copy without solutions/: nothing there to hide
                continue
            mode = path.stat().st_mode & 0o7777
            self._modes[name] = mode
            path.chmod(mode & 0o700)

    def release(self) -> None:
        """Give solutions/ and tests/ their modes back; kill whatever the runner user left."""
        for name, mode in self._modes.items():
            (catalog.ROOT / name).chmod(mode)
        self._modes.clear()
        if self.user:
            subprocess.run(
                [sys.executable, "-c", "import os, signal; os.kill(-1, signal.SIGKILL)"],
                user=self.user[0],
                group=self.user[1],
                extra_groups=[],
                cwd="/",
                env={"PATH": os.environ.get("PATH", "")},
                capture_output=True,
                check=False,
                timeout=60,
            )


def confine() -> Confinement:
    """Set up what this machine allows, and say what it does not."""
    from drills.judge.remote import confinement as namespaces

    confinement = Confinement()
    if not namespaces():
        confinement.notes.append(
            "NO namespaces (unshare or user namespaces unavailable): runners see the grader's "
            "processes and the repository"
        )
    if os.geteuid() != 0:
        confinement.notes.append(
            "NOT as another user: the grader is not running as root, so runners run as this "
            "user and could read solutions/"
        )
        return confinement
    try:
        entry = pwd.getpwnam(RUNNER_USER)
    except KeyError:
        confinement.notes.append(f"NOT as another user: there is no user {RUNNER_USER}")
        return confinement
    user = (entry.pw_uid, entry.pw_gid)
    problem = _runs_python_as(user)
    if problem:
        confinement.notes.append(f"NOT as another user: {RUNNER_USER} {problem}")
        return confinement
    confinement.user = user
    confinement.hide_sources()
    return confinement


def _runs_python_as(user: tuple[int, int]) -> str:
    """'' if that user can import torch and triton with this Python, else what went wrong."""
    try:
        done = subprocess.run(
            [sys.executable, "-E", "-c", "import torch, triton, numpy"],
            user=user[0],
            group=user[1],
            extra_groups=[],
            cwd="/",
            env={"PATH": os.environ.get("PATH", ""), "HOME": "/"},
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return f"cannot start {sys.executable}: {e}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"cannot import torch and triton with {sys.executable}: {last[:300]}"
    return ""
