"""Grade drills: each in its own pytest subprocess, with a time limit, whatever the code does.

A drill's suite runs in a child process that streams one JSON line per case (see
pytest_plugin). If the child dies (a segfault, a CUDA fault) the case it was running is marked
and the rest of the suite resumes in a fresh process; if the drill's time runs out the child is
killed and the case it was running is marked. Every drill is reported, whatever happened.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from drills import catalog
from drills.pytest_plugin import RESTART_EXIT, source_file

# Seconds. A correct drill grades in a few seconds on the interpreter; a GPU may compile (and
# autotune) for a while before the first case returns.
CASE_LIMIT = {"interpreter": 30, "gpu": 180}
DRILL_LIMIT = {"interpreter": 150, "gpu": 600}


@dataclass
class CheckResult:
    name: str
    status: str  # passed, failed, not_started, error, crashed, timeout, skipped
    score: float
    max_score: float
    message: str = ""
    case: str = ""  # the first case that failed
    skipped_cases: list[str] = field(default_factory=list)  # cases only a GPU can run
    scored: bool = True  # False for an extra check: reported, worth no points


@dataclass
class DrillResult:
    id: str
    slug: str
    title: str
    status: str  # passed, failed, not_started, error, crashed, timeout
    score: float
    max_score: float
    seconds: float
    checks: list[CheckResult]
    message: str = ""  # what went wrong at the drill level (an import error, a crash)
    source: str = ""

    def to_json(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# Running a suite in child processes
# ---------------------------------------------------------------------------------------------


@dataclass
class _Run:
    collected: list[dict] = field(default_factory=list)
    results: dict[str, dict] = field(default_factory=dict)
    timed_out: bool = False
    problem: str = ""  # a failure outside any case


def _read_events(path: Path) -> tuple[list[dict], str | None]:
    """The events written so far, and the case that had started without finishing."""
    events = []
    for line in path.read_text().splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            # the last line of a child killed while writing it
            continue
    started = None
    for event in events:
        if event["event"] == "start":
            started = event["nodeid"]
        elif event["event"] == "result" and event["nodeid"] == started:
            started = None
    return events, started


def _death(returncode: int) -> str:
    if returncode < 0:
        name = signal.Signals(-returncode).name
        if name == "SIGSEGV":
            return (
                "the process crashed with a segmentation fault (SIGSEGV). On the CPU "
                "interpreter this is what a load or store far outside a tensor does: "
                "check your masks and offsets."
            )
        if name == "SIGABRT":
            return (
                "the process aborted (SIGABRT). On the CPU interpreter this is usually "
                "memory corrupted earlier by a store outside a tensor: check the masks on "
                "your stores."
            )
        return f"the process was killed by {name}."
    return f"the process exited with status {returncode}."


def _tail(path: Path, lines: int = 15) -> str:
    text = path.read_text(errors="replace").splitlines() if path.exists() else []
    return "\n".join(text[-lines:])


def run_suite(
    drill: catalog.Drill,
    impl: str,
    runtime_kind: str,
    drill_limit: float | None = None,
    case_limit: float | None = None,
) -> _Run:
    drill_limit = drill_limit or DRILL_LIMIT[runtime_kind]
    case_limit = case_limit or CASE_LIMIT[runtime_kind]
    deadline = time.monotonic() + drill_limit
    run = _Run()
    failed_checks: set[str] = set()
    with tempfile.TemporaryDirectory(prefix=f"grade-{drill.slug}-") as tmp:
        events_path, skip_path, log_path = (Path(tmp, n) for n in ("events", "skip", "log"))
        events_path.touch()
        while True:
            # A resumed run skips what is graded and every check that already failed.
            done = [
                c["nodeid"]
                for c in run.collected
                if c["nodeid"] in run.results or c["check"] in failed_checks
            ]
            skip_path.write_text("\n".join(done))
            command = [
                sys.executable,
                "-m",
                "pytest",
                str(drill.test_file),
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:xdist",
                "--impl",
                impl,
                "--drills-events",
                str(events_path),
                "--drills-skip",
                str(skip_path),
                f"--timeout={case_limit}",
                "-o",
                "timeout_method=signal",
            ]
            with open(log_path, "w") as log:
                child = subprocess.Popen(
                    command,
                    cwd=catalog.ROOT,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                try:
                    returncode = child.wait(timeout=max(1.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(child.pid, signal.SIGKILL)
                    child.wait()
                    returncode = None
            events, in_flight = _read_events(events_path)
            for event in events:
                if event["event"] == "collected" and not run.collected:
                    run.collected = event["items"]
                elif event["event"] == "result":
                    run.results[event["nodeid"]] = event
                    if event["outcome"] == "failed":
                        failed_checks.add(event["check"])
            events_path.write_text("")
            if returncode is None:
                run.timed_out = True
                if in_flight:
                    run.results[in_flight] = _synthetic(
                        run,
                        in_flight,
                        "timeout",
                        (
                            f"still running when the drill's {drill_limit:.0f} s ran out: an "
                            "endless loop, or a kernel far too slow for these sizes."
                        ),
                    )
                return run
            if returncode in (0, 1, 5):
                return run
            if returncode == RESTART_EXIT:
                continue
            if in_flight:
                run.results[in_flight] = _synthetic(run, in_flight, "crashed", _death(returncode))
                failed_checks.add(run.results[in_flight]["check"])
                continue
            run.problem = f"{_death(returncode)}\n{_tail(log_path)}"
            return run


def _synthetic(run: _Run, nodeid: str, kind: str, message: str) -> dict:
    item = next(c for c in run.collected if c["nodeid"] == nodeid)
    case = nodeid[nodeid.index("[") + 1 : -1] if "[" in nodeid else ""
    return {
        "nodeid": nodeid,
        "check": item["check"],
        "points": item["points"],
        "case": case,
        "outcome": "failed",
        "kind": kind,
        "message": message,
    }


# ---------------------------------------------------------------------------------------------
# From case results to checks and a drill status
# ---------------------------------------------------------------------------------------------

_CHECK_STATUS = {
    "not_started": "not_started",
    "import_error": "error",
    "timeout": "timeout",
    "crashed": "crashed",
    "cuda_fault": "crashed",
    "failed": "failed",
}


def _check_results(run: _Run) -> list[CheckResult]:
    order: dict[str, list[dict]] = {}
    for item in run.collected:
        if item["check"]:
            order.setdefault(item["check"], []).append(item)
    return [_check_result(name, items, run) for name, items in order.items()]


def _check_result(name: str, items: list[dict], run: _Run) -> CheckResult:
    points = float(items[0]["points"])
    results = [run.results.get(item["nodeid"]) for item in items]
    failures = [r for r in results if r and r["outcome"] == "failed"]
    skipped = [r["case"] for r in results if r and r["outcome"] == "skipped"]
    ran = [r for r in results if r and r["outcome"] == "passed"]
    scored = points > 0
    if failures:
        first = failures[0]
        status = _CHECK_STATUS[first["kind"] or "failed"]
        return CheckResult(
            name, status, 0.0, points, first["message"], first["case"], skipped, scored
        )
    if None in results:
        status, why = (
            ("crashed", "see the drill")
            if run.problem
            else ("timeout", "the drill ran out of time before this check")
        )
        return CheckResult(name, status, 0.0, points, f"not run: {why}.", scored=scored)
    if not ran:
        return CheckResult(name, "skipped", 0.0, 0.0, "every case needs a GPU", "", skipped, scored)
    return CheckResult(name, "passed", points, points, "", "", skipped, scored)


def _drill_status(checks: list[CheckResult], run: _Run) -> str:
    """The drill's status, from its scored checks: extra checks never change it."""
    statuses = {c.status for c in checks if c.scored}
    if run.problem and not checks:
        return "crashed"
    if "error" in statuses:
        return "error"
    if statuses <= {"not_started", "skipped"} and "not_started" in statuses:
        return "not_started"
    if run.timed_out:
        return "timeout"
    if "crashed" in statuses or run.problem:
        return "crashed"
    if statuses <= {"passed", "skipped"}:
        return "passed"
    return "failed"


def grade(
    drill: catalog.Drill, impl: str, runtime_kind: str, drill_limit: float | None = None
) -> DrillResult:
    source = source_file(impl, drill.slug)
    started = time.monotonic()
    run = run_suite(drill, impl, runtime_kind, drill_limit)
    checks = _check_results(run)
    status = _drill_status(checks, run)
    message = run.problem
    if status == "error":
        message = next(c.message for c in checks if c.status == "error")
    elif status == "not_started":
        message = f"{_relative(source)} still raises NotStarted."
    return DrillResult(
        drill.id,
        drill.slug,
        drill.title,
        status,
        float(sum(c.score for c in checks)),
        float(sum(c.max_score for c in checks)),
        round(time.monotonic() - started, 2),
        checks,
        message,
        _relative(source),
    )


def grade_or_report(
    drill: catalog.Drill, impl: str, runtime_kind: str, drill_limit: float | None = None
) -> DrillResult:
    """grade(), except that a failure of the grader itself is reported as this drill's result,
    so the other drills are still graded and the JSON is still written."""
    try:
        return grade(drill, impl, runtime_kind, drill_limit)
    except Exception as e:  # noqa: BLE001 - any failure here must not stop the other drills
        return DrillResult(
            drill.id,
            drill.slug,
            drill.title,
            "crashed",
            0.0,
            100.0,
            0.0,
            [],
            f"the grader failed on this drill: {type(e).__name__}: {e}",
            _relative(source_file(impl, drill.slug)),
        )


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(catalog.ROOT))
    except ValueError:
        return str(path)
