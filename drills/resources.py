"""What this machine gives the grader: CPUs and memory as its cgroup limits them.

A container (Gradescope's, a CI runner's) sees the host's cores in os.cpu_count() and the host's
memory in /proc/meminfo; what it may use is its cgroup's quota and limit (cgroup v2's cpu.max
and memory.max, v1's cpu.cfs_quota_us and memory.limit_in_bytes), in its own cgroup or any
above it. Standard library only: the grader reads these before it imports anything large.
"""

import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")  # which cgroups this process is in
# A cgroup v1 memory limit this large means none (the kernel's "unlimited" rounds to a page).
NO_LIMIT = 1 << 60


def _cgroup_folders(controller: str) -> list[Path]:
    """The cgroup folders of this process for `controller`, its own first, then each above it."""
    folders = []
    try:
        lines = PROC_CGROUP.read_text().splitlines()
    except OSError:
        return folders
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # cgroup v2: one hierarchy for every controller
            mount = CGROUP_ROOT
        elif controller in controllers.split(","):
            mount = CGROUP_ROOT / controllers
            if not mount.exists():  # mounted as cpu,cpuacct, or under its first name
                mount = CGROUP_ROOT / controller
        else:
            continue
        relative = Path(path.lstrip("/"))
        folders += [mount / relative, *(mount / p for p in relative.parents)]
    return [f for f in dict.fromkeys(folders) if f.is_dir()]


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def cpus() -> float:
    """The CPUs this process may keep busy: the smallest cgroup quota above it (0.5 for half a
    CPU), else the CPUs it may run on."""
    limits = [float(len(os.sched_getaffinity(0)))]
    for folder in _cgroup_folders("cpu"):
        quota, _, period = _read(folder / "cpu.max").partition(" ")  # v2: "50000 100000"
        if not period:  # v1
            quota, period = _read(folder / "cpu.cfs_quota_us"), _read(folder / "cpu.cfs_period_us")
        if quota.lstrip("-").isdigit() and int(quota) > 0 and period.isdigit() and int(period):
            limits.append(int(quota) / int(period))
    return min(limits)


def memory_limit() -> int | None:
    """The smallest memory limit of this process's cgroups, in bytes; None when none is set."""
    limits = [
        int(value)
        for folder in _cgroup_folders("memory")
        for value in (_read(folder / "memory.max"), _read(folder / "memory.limit_in_bytes"))
        if value.isdigit() and int(value) < NO_LIMIT
    ]
    return min(limits) if limits else None


def memory_bytes() -> int:
    """The memory this process may use: its cgroup limit, or the machine's when that is less."""
    total = next(
        int(line.split()[1]) * 1024
        for line in _read(Path("/proc/meminfo")).splitlines()
        if line.startswith("MemTotal:")
    )
    limit = memory_limit()
    return total if limit is None else min(total, limit)
