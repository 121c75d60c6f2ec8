"""The repo's own tests of what the grader reads of its machine (drills/resources.py) and what it
does with it: CPUs and memory from cgroup v1 and v2 files, the drills graded at once and their
time limits, and a refusal, before any grading, where a drill cannot fit in memory."""

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from test_self_exports import run_autograder, unpack_bundle  # pytest collects it, from tests/

from drills import catalog, cli, limits, processes, resources, runtime

ROOT = catalog.ROOT
INTERPRETER = runtime.Runtime("interpreter", "cpu", "CPU interpreter")


def fake_cgroups(tmp_path: Path, monkeypatch, membership: str, files: dict[str, str]) -> None:
    """A cgroup tree under tmp_path: /proc/self/cgroup reads `membership`, and each of `files`
    (its path under the cgroup root: its text) exists."""
    (tmp_path / "self-cgroup").write_text(membership)
    for name, text in files.items():
        (tmp_path / "root" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "root" / name).write_text(text)
    monkeypatch.setattr(resources, "PROC_CGROUP", tmp_path / "self-cgroup")
    monkeypatch.setattr(resources, "CGROUP_ROOT", tmp_path / "root")


def test_cgroup_v2_quota_and_the_smallest_memory_limit_above(tmp_path, monkeypatch):
    fake_cgroups(
        tmp_path,
        monkeypatch,
        "0::/autograder/job\n",
        {
            "autograder/job/cpu.max": "50000 100000",
            "autograder/job/memory.max": "max",
            "autograder/memory.max": str(768 << 20),  # a parent's limit holds its children
            "autograder/cpu.max": "max 100000",
        },
    )
    assert resources.cpus() == 0.5
    assert resources.memory_limit() == 768 << 20
    assert resources.memory_bytes() == 768 << 20


def test_cgroup_v1_quota_and_limit(tmp_path, monkeypatch):
    fake_cgroups(
        tmp_path,
        monkeypatch,
        "5:memory:/docker/c1\n3:cpu,cpuacct:/docker/c1\n1:name=systemd:/docker/c1\n",
        {
            "cpu,cpuacct/docker/c1/cpu.cfs_quota_us": "150000",
            "cpu,cpuacct/docker/c1/cpu.cfs_period_us": "100000",
            "memory/docker/c1/memory.limit_in_bytes": str(2 << 30),
            "memory/memory.limit_in_bytes": "9223372036854771712",  # v1's "no limit"
        },
    )
    assert resources.cpus() == min(1.5, len(os.sched_getaffinity(0)))
    assert resources.memory_limit() == 2 << 30


def test_no_cgroup_limits_leave_the_machines_own(tmp_path, monkeypatch):
    fake_cgroups(tmp_path, monkeypatch, "0::/\n", {"cpu.max": "max 100000"})
    assert resources.cpus() == len(os.sched_getaffinity(0))
    assert resources.memory_limit() is None
    assert resources.memory_bytes() > 0


def pypis_torch(monkeypatch) -> None:
    """The memory figures of PyPI's torch (1.5 GB a drill), whichever torch is installed."""
    from drills import runtime

    monkeypatch.setattr(runtime, "versions", lambda: {"torch": "2.14.1"})


@pytest.mark.parametrize(
    ("cpus", "memory_mb", "at_once", "slowdown"),
    [(0.5, 1536, 1, 2.0), (2, 1536, 1, 1.0), (2, 4096, 2, 1.0), (8, 4096, 2, 1.0), (1, 4096, 1, 1)],
)
def test_drills_at_once_and_their_time_follow_the_cgroup(
    cpus, memory_mb, at_once, slowdown, monkeypatch
):
    pypis_torch(monkeypatch)
    monkeypatch.setattr(resources, "cpus", lambda: cpus)
    monkeypatch.setattr(resources, "memory_bytes", lambda: memory_mb << 20)
    workers = cli._drills_at_once(INTERPRETER)
    assert workers == at_once
    assert cli._slowdown(workers) == slowdown


def test_too_little_memory_names_what_to_change(monkeypatch):
    pypis_torch(monkeypatch)
    monkeypatch.setattr(resources, "memory_limit", lambda: 768 << 20)
    assert cli._too_little_memory(INTERPRETER) == 768 << 20
    for words in cli.REFUSED_WORDS.values():
        problem = words["memory"].format(limit=768, needed=1536, smaller=words["smaller_torch"])
        assert "768 MB" in problem and "Gradescope" in problem and "--memory=1536m" in problem
        assert "TORCH=cpu" in problem
    monkeypatch.setattr(resources, "memory_limit", lambda: cli.memory_per_drill())
    assert cli._too_little_memory(INTERPRETER) is None


@pytest.mark.parametrize(
    ("torch_version", "needed_mb", "grades_in_768_mb"),
    [("2.14.1", 1536, False), ("2.13.0+cpu", 512, True), ("2.14.1+cu130", 1536, False)],
)
def test_a_cpu_only_torch_needs_a_third_of_the_memory(
    torch_version, needed_mb, grades_in_768_mb, monkeypatch
):
    """PyPI's torch maps CUDA's libraries into every process (one drill peaked at 1512 MB); the
    CPU-only build peaked at 346 MB, so Gradescope's default 768 MB grades with it."""
    from drills import runtime

    monkeypatch.setattr(runtime, "versions", lambda: {"torch": torch_version})
    monkeypatch.setattr(resources, "memory_limit", lambda: 768 << 20)
    assert cli.memory_per_drill() == needed_mb << 20
    assert (cli._too_little_memory(INTERPRETER) is None) == grades_in_768_mb


def new_cgroup_v1(controller: str, knob: str) -> Path | None:
    """A new cgroup v1 folder for `controller` (whose limit is the file `knob`) under this
    process's own, or None where this machine does not let this process make one (not root,
    cgroup v2, read-only)."""
    own = next(iter(resources._cgroup_folders(controller)), None)
    if own is None or not (own / knob).exists():
        return None
    folder = own / f"drills-test-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir()
    except OSError:
        return None
    return folder


@pytest.fixture
def on_gradescopes_default_hardware():
    """A command prefix that runs a command in cgroups of 768 MB and half a CPU (Gradescope's
    default autograder), made for this test and removed after it."""
    memory = new_cgroup_v1("memory", "memory.limit_in_bytes")
    cpu = new_cgroup_v1("cpu", "cpu.cfs_quota_us")
    if memory is None or cpu is None:
        for folder in (memory, cpu):
            if folder:
                folder.rmdir()
        pytest.skip("this machine does not let the tests make cgroup v1 folders")
    (memory / "memory.limit_in_bytes").write_text(str(768 << 20))
    (cpu / "cpu.cfs_period_us").write_text("100000")
    (cpu / "cpu.cfs_quota_us").write_text("50000")
    join = f"echo $$ > {memory}/cgroup.procs && echo $$ > {cpu}/cgroup.procs"
    yield ["sh", "-c", f'{join} && exec "$@"', "in-cgroup"]
    for folder in (memory, cpu):
        for _ in range(50):  # a killed process leaves its cgroup a moment after it exits
            try:
                folder.rmdir()
                break
            except OSError:
                time.sleep(0.1)


@pytest.mark.skipif(
    cli.memory_per_drill() <= 768 << 20, reason="a CPU-only torch grades in Gradescope's default"
)
def test_a_bundle_on_gradescopes_default_hardware_refuses_at_once(
    tmp_path, on_gradescopes_default_hardware
):
    root = unpack_bundle(tmp_path, "t1")
    (root / "submission").mkdir()
    shutil.copy(ROOT / "solutions" / "t1_add.py", root / "submission" / "t1_add.py")
    done = run_autograder(root, *on_gradescopes_default_hardware, timeout=120)
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    assert "768 MB" in done.stderr and "1536 MB" in done.stderr, done.stderr
    assert "TORCH=cpu" in done.stderr  # PyPI's torch: the CPU-only one would fit
    assert "nothing was graded" in done.stderr and "Grading" not in done.stdout
    # what the student sees: why, in Gradescope's results, not a generic failure
    shown = json.loads((root / "results" / "results.json").read_text())
    assert shown["score"] == 0 and "768 MB" in shown["output"] and "1536 MB" in shown["output"]


def test_a_process_killed_for_memory_is_said_to_be(monkeypatch):
    monkeypatch.setattr(resources, "memory_limit", lambda: 768 << 20)
    assert "memory ran out: this machine gives the grader 768 MB" in processes.death(-9)
    monkeypatch.setattr(resources, "memory_limit", lambda: None)
    assert "the machine ran out of memory" in processes.death(-9)


def test_the_judge_and_what_it_starts_go_before_the_grader_when_memory_runs_out():
    script = (
        "import subprocess, sys\n"
        "from drills import processes\n"
        "processes.first_to_go_when_memory_runs_out()\n"
        "child = 'print(open(\"/proc/self/oom_score_adj\").read().strip())'\n"
        "subprocess.run([sys.executable, '-c', child])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "1000"  # inherited by every process the judge starts


class _Item:
    """What give_whole_drills_the_gpus_limit reads of a pytest item: its markers."""

    def __init__(self, *markers: pytest.MarkDecorator):
        self.markers = [m.mark for m in markers]

    def get_closest_marker(self, name: str):
        return next((m for m in reversed(self.markers) if m.name == name), None)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.append(marker.mark)


def test_on_a_gpu_a_test_that_grades_whole_drills_has_the_drills_limit():
    from conftest import give_whole_drills_the_gpus_limit  # tests/conftest.py, on the path

    grades, own, quick = (
        _Item(pytest.mark.slow),
        _Item(pytest.mark.slow, pytest.mark.timeout(900)),
        _Item(),
    )
    give_whole_drills_the_gpus_limit([grades, own, quick])
    assert grades.get_closest_marker("timeout").args == (limits.DRILL_LIMIT["gpu"] + 60,)
    assert own.get_closest_marker("timeout").args == (900,)
    assert quick.get_closest_marker("timeout") is None
