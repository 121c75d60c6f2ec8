"""`grader.py --sandbox`: what an instructor's deployment adds around the runners.

Every runner already runs, where the machine allows it, in namespaces of its own (see
drills.confine: no view of other processes, a read-only repository without
solutions/, tests/ and .git, no capabilities). The sandbox adds:

- Runners run as a user of this run's own: a uid that no account names and no process on the
  machine has, so that only this run's runners ever have it. Only root can switch to it, so the
  grader must run as root. solutions/, tests/ and .git are readable by their owner only while
  grading (for the parts of a machine namespaces do not cover). On a GPU too: a runner holds only
  stand-ins of its own, so it shares no GPU memory with the judge (the judge's executor, which
  does, stays the judge's user).
- Limits on CPU time and process count (per uid: they count this run's processes only).
- When grading ends, every process of that uid is killed: they are all this run's.

Where a protection it promises cannot be had (not root, no namespaces, a uid that cannot run
this Python), `confine()` raises SandboxRefused naming it: grader.py exits 2, unless the instructor
accepts less with --sandbox-accept-less. Then `SandboxSetup.notes` say what is missing, for the
instructor's console and the native JSON only: students' exports say no more than "in the
sandbox".
"""

import os
import pwd
import secrets
import subprocess
import sys
from dataclasses import dataclass, field

from drills import catalog
from drills import confine as namespaces

# uids above those useradd, systemd's dynamic users and its container ranges hand out (up to
# 0x6FFFFFFF), below 2^31, which some tools read as negative
RUNNER_UIDS = range(0x70000000, 0x7FFF0000)
MAX_PROCESSES = 4096  # per user, threads included: torch starts one per core


class SandboxRefused(Exception):
    """--sandbox cannot give a protection it promises; str() says which, and what to do."""


@dataclass
class SandboxSetup:
    user: tuple[int, int] | None = None  # (uid, gid) the processes that run learner code run as
    notes: list[str] = field(default_factory=list)  # what is missing, for the instructor
    _modes: dict[str, int] = field(default_factory=dict)

    def runner_settings(self, drill_limit: float) -> dict:
        """What the judge passes on to its runners (drills.judge.remote.Sandbox)."""
        return {
            "user": list(self.user) if self.user else None,
            "cpu_seconds": int(drill_limit * 4),  # CPU seconds: several threads count at once
            "processes": MAX_PROCESSES if self.user else None,
        }

    def summary(self) -> str:
        """One line for the heading: what protects this run, never what does not."""
        who = (
            "the learner's code runs as a user of its own (on a GPU, its host code)"
            if self.user
            else "the learner's code runs as this user"
        )
        return f"sandbox: {who}, with limits"

    def hide_sources(self) -> None:
        for name in namespaces.HIDDEN:
            path = catalog.ROOT / name
            if not path.exists() or path.is_symlink():  # a course copy has no solutions/
                continue
            mode = path.stat().st_mode & 0o7777
            self._modes[name] = mode
            path.chmod(mode & 0o700)

    def release(self) -> None:
        """Give solutions/, tests/ and .git their modes back; kill whatever the runners' uid
        left running, which is this run's alone."""
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


def confine(accept_less: bool = False) -> SandboxSetup:
    """Set up every protection --sandbox promises, or raise SandboxRefused naming the first one this
    machine cannot give; with accept_less, go on without it and note it."""
    confinement = SandboxSetup()

    def missing(what: str) -> None:
        if not accept_less:
            raise SandboxRefused(f"{what}. Pass --sandbox-accept-less to grade without it.")
        confinement.notes.append(what)

    if namespaces.turned_off() or not namespaces.available(str(catalog.ROOT)):
        why = (
            "DRILLS_NO_NAMESPACES=1"
            if namespaces.turned_off()
            else "unshare, or user namespaces, unavailable"
        )
        missing(
            f"no namespaces ({why}): runners would see the machine's processes and the repository"
        )
    if os.geteuid() != 0:
        missing("not running as root, so runners cannot run as a user of their own")
        return confinement
    uid = unused_uid()
    problem = _runs_python_as((uid, uid))
    if problem:
        missing(f"a runner's user (uid {uid}) {problem}")
        return confinement
    confinement.user = (uid, uid)
    confinement.hide_sources()
    return confinement


def unused_uid() -> int:
    """A uid of RUNNER_UIDS that no account names and no running process has."""
    taken = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                taken.add(os.stat(f"/proc/{entry}").st_uid)
            except OSError:
                continue
    while True:
        uid = RUNNER_UIDS.start + secrets.randbelow(len(RUNNER_UIDS))
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if uid not in taken:
                return uid


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
        return f"cannot start this Python: {e}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"cannot import torch and triton: {last[:300]}"
    return ""
