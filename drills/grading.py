"""Grade drills: each in its own judge process (pytest), with a time limit, whatever the code does.

A drill's suite runs in a judge process that streams one JSON line per case into a pipe (see
pytest_plugin); the judge runs the learner's code in a runner process of its own (see remote).
If the judge dies, the case it was running is marked and the rest of the suite resumes in a
fresh judge; if the drill's time runs out the judge is killed and the case it was running is
marked. Every drill is reported, whatever happened, and its score is only ever the points of
the checks the judge saw pass.
"""

import contextlib
import json
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from drills import catalog, integrity, processes
from drills import events as judge_events
from drills.catalog import source_file
from drills.failures import (
    SHOWN_BY_STATUS,
    STATUS_OF_STOP,
    TOO_MANY_PROGRAMS,
    Failure,
    Kind,
    Outcome,
    Status,
    Stop,
)
from drills.judge import forks, syntax
from drills.limits import CASE_LIMIT, DRILL_LIMIT

# Judges started per drill at most: the first, and one per judge that died mid-suite.
MAX_JUDGES = 4
# A learner's drill file larger than this is not graded (it is not a drill file).
MAX_SOURCE_BYTES = 1 << 20
MAX_EVENT_BYTES = 8 << 20
MAX_EVENT_LINE = 64 << 10
# Characters a terminal or a log viewer acts on rather than shows: control characters other
# than tab and newline (a carriage return starts a new line in a GitHub Actions log), Unicode
# line separators, and the bidirectional overrides that reorder what a reader sees.
_ACTED_ON = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)
# A GitHub Actions workflow command: '::name::' at the start of a line, leading whitespace
# allowed, or the older '##[name]' anywhere in it (actions/runner, ActionCommand.cs).
_WORKFLOW_COMMAND = re.compile(r"^(\s*):(?=:)|##\[", re.MULTILINE)


def inert(text: str) -> str:
    """`text`, which may quote the learner's code or its exceptions, such that no terminal, CI
    log or course tool showing it acts on it: what would be acted on is written out (\\x1b,
    \\x3a:notice, \\x23#[). It cannot print a forged score into a Classroom log, clear a
    screen or turn a line around. Applying it twice changes nothing more."""
    text = _ACTED_ON.sub(lambda m: _escape(m.group()), text)
    return _WORKFLOW_COMMAND.sub(
        lambda m: f"{m.group(1)}\\x3a" if m.group(1) is not None else "\\x23#[", text
    )


def _escape(character: str) -> str:
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass
class CheckResult:
    name: str
    status: Status
    score: float
    max_score: float
    message: str = ""
    case: str = ""  # the first case that failed
    skipped_cases: list[str] = field(default_factory=list)  # cases only a GPU can run
    scored: bool = True  # False for an extra check: reported, worth no points
    tiles: dict | None = None  # the first failing case's map of the output's tiles, if drawn
    # every case of the check, in order: {"case": its id, "outcome": passed, failed, skipped
    # (GPU-only here), not_run (after an earlier case failed, or not for this file) or missing
    # (the judge stopped first)}
    cases: list[dict] = field(default_factory=list)
    id: str = ""  # the check's id in the drill's spec (drills/spec.py)
    # the first failing case, as data (drills.failures.Failure.to_json); None where it passed
    failure: dict | None = None

    def __post_init__(self) -> None:
        self.message = inert(self.message)


@dataclass
class DrillResult:
    id: str
    slug: str
    title: str
    status: Status  # never skipped
    score: float
    max_score: float
    seconds: float
    checks: list[CheckResult]
    message: str = ""  # what went wrong at the drill level (an import error, a crash)
    source: str = ""

    def __post_init__(self) -> None:
        self.message = inert(self.message)

    def to_json(self) -> dict:
        return asdict(self)


# ---------------------------------------------------------------------------------------------
# Running a suite in judge processes
# ---------------------------------------------------------------------------------------------


@dataclass
class _Run:
    collected: list[dict] = field(default_factory=list)
    results: dict[str, dict] = field(default_factory=dict)
    timed_out: bool = False
    problem: str = ""  # a failure outside any case
    tampered: list[str] = field(default_factory=list)  # the judge's files the drill changed


def _read_events(stream) -> list[dict]:
    """The judge's events, as many as fit the caps, without malformed ones: those read before
    the stream closed, where it closes under this reader (the process grading was interrupted,
    and the with-block that holds the stream ended)."""
    events = []
    with contextlib.suppress(OSError, ValueError):
        _read_valid_events(stream, events)
    return events


def _read_valid_events(stream, events: list[dict]) -> None:
    total = 0
    for line in stream:
        total += len(line)
        if total > MAX_EVENT_BYTES:
            break
        if len(line) > MAX_EVENT_LINE:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue  # the last line of a judge killed while writing it
        if judge_events.valid(event):
            events.append(event)
    for _ in stream:  # drain, so the judge never blocks on a full pipe
        pass


def _in_flight(events: list[dict]) -> str | None:
    """The case that had started without finishing."""
    started = None
    for event in events:
        if event["event"] == "start":
            started = event["nodeid"]
        elif event["event"] == "result" and event["nodeid"] == started:
            started = None
    return started


def _judge_arguments(
    drill: catalog.Drill,
    source: Path,
    shown_as: str,
    case_limit: float,
    deadline: float,
    sandbox: dict | None,
    only_checks: list[str] | None,
) -> list[str]:
    """drills.judge.main's arguments: its channel (the job comes in on it, the events go out),
    then pytest's."""
    command = [
        "{channel}",
        str(drill.test_file),
        "-q",
        "-c",
        str(catalog.ROOT / "pyproject.toml"),  # this configuration and no other
        "--rootdir",
        str(catalog.ROOT),
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        "-p",
        "no:unraisableexception",
        "-p",
        "pytest_timeout",
        "--impl",
        str(source),
        "--drills-shown-as",
        shown_as,
        "--drills-events-fd",
        "{channel}",
        "--drills-case-limit",
        str(case_limit),
        "--drills-deadline",
        str(deadline),
        # a safety net for the judge itself: runner calls time out well before this
        f"--timeout={case_limit * 2 + 60:.0f}",
        "-o",
        "timeout_method=signal",
    ]
    if sandbox:
        command += ["--drills-sandbox", json.dumps(sandbox)]
    if only_checks:
        command += ["--drills-checks", json.dumps(only_checks)]
    return command


def _judge_environment() -> dict[str, str]:
    # entry-point plugins are not the judge's: only those named on its command line load
    return dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")


def run_suite(
    drill: catalog.Drill,
    source: Path,
    shown_as: str,
    runtime_kind: str,
    drill_limit: float | None = None,
    case_limit: float | None = None,
    guard=None,
    sandbox: dict | None = None,
    only_checks: list[str] | None = None,
) -> _Run:
    drill_limit = drill_limit or DRILL_LIMIT[runtime_kind]
    case_limit = case_limit or CASE_LIMIT[runtime_kind]
    deadline = time.time() + drill_limit
    run = _Run()
    failed_checks: set[str] = set()
    for _ in range(MAX_JUDGES):
        # A resumed judge skips what is graded and every check that already failed.
        done = [
            c["nodeid"]
            for c in run.collected
            if c["nodeid"] in run.results or c["check_id"] in failed_checks
        ]
        returncode, events, log = _run_judge(
            _judge_arguments(drill, source, shown_as, case_limit, deadline, sandbox, only_checks),
            done,
            deadline,
        )
        if guard is not None:
            run.tampered += guard.check()
        for event in events:
            if event["event"] == "collected" and not run.collected:
                run.collected = event["items"]
            elif event["event"] == "result":
                run.results[event["nodeid"]] = event  # a case not run counts neither way
                if event["outcome"] == Outcome.FAILED:
                    failed_checks.add(event["check_id"])
        in_flight = _in_flight(events)
        if returncode is None:
            run.timed_out = True
            if in_flight:
                run.results[in_flight] = _synthetic(
                    run,
                    in_flight,
                    Stop.TIMEOUT,
                    f"still running when the drill's {drill_limit:.0f} s ran out: an endless "
                    "loop, or a kernel far too slow for these sizes.",
                )
            return run
        if not any(event["event"] == "collected" for event in events) and not run.tampered:
            # it ended before it listed the cases, whatever its exit status said
            run.problem = (
                "the grader's judge process failed before it listed the cases: "
                f"{processes.death(returncode)}\n{log}"
            )
            return run
        if returncode in (0, 1, 5) or run.tampered:
            return run
        if in_flight:
            run.results[in_flight] = _synthetic(
                run, in_flight, Stop.CRASHED, processes.death(returncode)
            )
            failed_checks.add(run.results[in_flight]["check_id"])
            continue
        run.problem = f"the grader's judge process failed: {processes.death(returncode)}\n{log}"
        return run
    run.problem = f"the judge was restarted {MAX_JUDGES} times; the rest was not run."
    return run


def _run_judge(arguments: list[str], done: list[str], deadline: float):
    """One judge process, given its job (its environment, and the cases already graded) and
    sending its events on a channel of its own: (its exit status or None if killed at the
    deadline, its events, its output's end). It is a fork of the fork server's clean image
    (drills/judge/forks.py), torch and triton already imported, with only the environment a
    runner may see (drills/judge/main.py says why); the rest comes in its job."""
    ours, theirs = socket.socketpair()
    judge = {
        "program": "drills.judge.main",
        "module": True,
        "args": arguments,
        "cwd": str(catalog.ROOT),
        "env": forks.kept(os.environ),
        "repository": True,
        "judge": True,
    }
    with tempfile.TemporaryFile() as log, ours:
        with processes.starting(), theirs:
            try:
                process = forks.spawn(judge, theirs.fileno(), log.fileno())
            except forks.CannotStart as e:
                return 1, [], str(e)
        job = json.dumps({"environment": _judge_environment(), "graded": done})
        threading.Thread(target=_send_job, args=(ours, job), daemon=True).start()
        events: list[dict] = []
        with ours.makefile("rb") as stream:
            reader = threading.Thread(target=lambda: events.extend(_read_events(stream)))
            reader.start()
            try:
                # the judge stops itself at the deadline; this is for a judge that cannot
                returncode = process.wait(timeout=max(1.0, deadline - time.time() + 20))
            except subprocess.TimeoutExpired:
                returncode = None
            processes.kill_tree(process)
            reader.join()
        log.seek(0, os.SEEK_END)
        log.seek(max(0, log.tell() - 3000))
        tail = log.read().decode(errors="replace")
    return returncode, events, "\n".join(tail.splitlines()[-15:])


def _send_job(channel: socket.socket, job: str) -> None:
    """The job, then the end of what the judge will read (its events still come back)."""
    with contextlib.suppress(OSError):
        channel.sendall(job.encode())
        channel.shutdown(socket.SHUT_WR)


def _synthetic(run: _Run, nodeid: str, kind: Stop, message: str) -> dict:
    """The result the judge could not send for the case it was running when it died."""
    item = next(c for c in run.collected if c["nodeid"] == nodeid)
    case = nodeid[nodeid.index("[") + 1 : -1] if "[" in nodeid else ""
    failure = Failure.from_message(SHOWN_BY_STATUS[kind], message, case=case)
    return judge_events.result(
        nodeid,
        item["check"],
        item["check_id"],
        item["points"],
        case,
        Outcome.FAILED,
        kind,
        message,
        failure.to_json(),
    )


# ---------------------------------------------------------------------------------------------
# Choosing checks: `grader.py t3 --check TEXT`
# ---------------------------------------------------------------------------------------------


def select_checks(drill: catalog.Drill, text: str) -> list[str]:
    """The ids of the drill's checks that `text` chooses: the one whose id it is, else those
    whose names contain it (any case); or a catalog.NotFound that lists the drill's checks."""
    checks = drill.spec.checks
    chosen = [c.id for c in checks if c.id == text] or [
        c.id for c in checks if text.lower() in c.name.lower()
    ]
    if not chosen:
        listed = "\n".join(f"  {c.id:<14}{c.name}" for c in checks)
        raise catalog.NotFound(
            f"no check of {drill.id} has {text!r} as its id or in its name; its checks, "
            f"id and name:\n{listed}",
            f"{drill.id} 没有哪个检查的 id 是 {text!r}，名字里也没有它；它的检查（id 和名字）：\n"
            f"{listed}",
        )
    return chosen


# ---------------------------------------------------------------------------------------------
# From case results to checks and a drill status
# ---------------------------------------------------------------------------------------------


def _check_results(run: _Run) -> list[CheckResult]:
    """One result per check the judge collected, in its order."""
    order: dict[str, list[dict]] = {}
    for item in run.collected:
        if item["check_id"]:
            order.setdefault(item["check_id"], []).append(item)
    return [_check_result(items, run) for items in order.values()]


def _case_id(nodeid: str) -> str:
    """The case's id in a test's node id, test_name[ID]; for a test of one case, its name
    (test_adds_twice: "adds twice")."""
    test, _, case = nodeid.partition("::")[2].partition("[")  # an id may hold :: and [ itself
    return case.removesuffix("]") or test.removeprefix("test_").replace("_", " ")


def _check_result(items: list[dict], run: _Run) -> CheckResult:
    check = _check_result_of(items[0]["check"], items, run)
    check.id = items[0]["check_id"]
    check.cases = [
        {
            "case": _case_id(item["nodeid"]),
            "outcome": result["outcome"] if result else Outcome.MISSING,
        }
        for item, result in ((item, run.results.get(item["nodeid"])) for item in items)
    ]
    return check


def _check_result_of(name: str, items: list[dict], run: _Run) -> CheckResult:
    points = float(items[0]["points"])
    results = [run.results.get(item["nodeid"]) for item in items]
    failures = [r for r in results if r and r["outcome"] == Outcome.FAILED]
    skipped = [r["case"] for r in results if r and r["outcome"] == Outcome.SKIPPED]
    ran = [r for r in results if r and r["outcome"] == Outcome.PASSED]
    scored = points > 0
    if failures:
        first = failures[0]
        status = STATUS_OF_STOP[Stop(first["kind"] or Stop.FAILED)]
        return CheckResult(
            name,
            status,
            0.0,
            points,
            first["message"],
            first["case"],
            skipped,
            scored,
            first.get("tiles"),
            failure=first.get("failure"),
        )
    if None in results:
        status, why = (
            (Status.TIMEOUT, "the drill ran out of time before this check")
            if run.timed_out
            else (Status.CRASHED, "the judge stopped before this check; see the drill")
        )
        message = f"not run: {why}."
        failure = Failure.from_message(SHOWN_BY_STATUS[status], message).to_json()
        return CheckResult(name, status, 0.0, points, message, scored=scored, failure=failure)
    crowded = [
        r
        for r in results
        if r["outcome"] == Outcome.SKIPPED and str(r["message"]).startswith(TOO_MANY_PROGRAMS)
    ]
    if len(crowded) >= max(len(ran), 1):
        # the verdict must rest on cases that ran: where no more ran than were too large for
        # the kernel's grid on the interpreter, the CPU cannot judge the check
        message = (
            "no more cases of this check ran on the CPU than were left to a GPU for their "
            f"grids: {crowded[0]['message']}"
        )
        failure = Failure.from_message(Kind.TIMEOUT, message, case=crowded[0]["case"]).to_json()
        return CheckResult(
            name,
            Status.FAILED,
            0.0,
            points,
            message,
            crowded[0]["case"],
            skipped,
            scored,
            failure=failure,
        )
    if not ran:
        return CheckResult(
            name, Status.SKIPPED, 0.0, 0.0, "every case needs a GPU", "", skipped, scored
        )
    notes = [r["message"] for r in ran if r["message"]]
    return CheckResult(
        name, Status.PASSED, points, points, notes[0] if notes else "", "", skipped, scored
    )


def _drill_status(checks: list[CheckResult], run: _Run) -> Status:
    """The drill's status, from its scored checks (extra checks never change it): `passed` only
    when every one passed, and never `crashed` or `timeout` with every point."""
    statuses = {c.status for c in checks if c.scored}
    if run.tampered or not checks:
        return Status.FAILED if run.tampered else Status.CRASHED
    if statuses <= {Status.PASSED, Status.SKIPPED}:
        return Status.PASSED
    if Status.ERROR in statuses:
        return Status.ERROR
    if statuses <= {Status.NOT_STARTED, Status.SKIPPED}:
        return Status.NOT_STARTED
    if run.timed_out or Status.TIMEOUT in statuses:
        return Status.TIMEOUT
    if Status.CRASHED in statuses:
        return Status.CRASHED
    return Status.FAILED


def _charge_tampering(checks: list[CheckResult], tampered: list[str]) -> str:
    """A drill whose code changed the judge's files scores nothing, whatever it passed."""
    listed = ", ".join(tampered[:5]) + (" ..." if len(tampered) > 5 else "")
    message = (
        f"your code changed the grader's own files ({listed}). They were put back, and this "
        "drill scores nothing: a grade from a changed grader means nothing."
    )
    for c in checks:
        if c.status == Status.PASSED:
            c.status, c.score, c.message = Status.FAILED, 0.0, message
            c.failure = Failure.from_message(Kind.TAMPERED, message).to_json()
    return message


def _restore_hint(source: Path) -> str:
    """For a learner's file in mine/: the command that puts the stub back."""
    if source.parent != catalog.ROOT / "mine":
        return ""
    return f": `make reset DRILL={catalog.find(source.stem).id}` puts the stub back"


def private_copy(source: Path, folder: Path) -> Path | str:
    """The learner's file, copied before any learner code runs (nothing can change it while the
    other drills are graded); or why it cannot be graded."""
    if not source.exists():
        return f"{_relative(source)} does not exist{_restore_hint(source)}"
    try:
        text = integrity.read_regular(source, MAX_SOURCE_BYTES)
    except integrity.NotRegular as e:
        if "larger than" in str(e):
            return f"{_relative(source)} is larger than {MAX_SOURCE_BYTES // 1024} KB"
        return f"{_relative(source)} is not a regular file ({e})"
    if not text.strip():
        return f"{_relative(source)} is empty{_restore_hint(source)}"
    copy = folder / source.name
    copy.write_bytes(text)
    return copy


def grade(
    drill: catalog.Drill,
    impl: str,
    runtime_kind: str,
    drill_limit: float | None = None,
    *,
    case_limit: float | None = None,
    copy: Path | str | None = None,
    guard=None,
    sandbox: dict | None = None,
    only_checks: list[str] | None = None,
) -> DrillResult:
    """Grade one drill. `drill_limit` and `case_limit` are in seconds (default: limits.py);
    `copy` is the private copy of its file (private_copy), made here when not given; `guard`
    checks the judge's files after every judge; `sandbox` confines runners; `only_checks`, when
    given, are the ids of the only checks to run (select_checks)."""
    source = source_file(impl, drill.slug)
    started = time.monotonic()
    with processes.scratch_folder(f"grade-{drill.slug}-") as folder:
        copy = copy or private_copy(source, Path(folder))
        decided = decided_at_once(drill, copy, _relative(source))
        if decided:
            return decided
        run = run_suite(
            drill,
            copy,
            _relative(source),
            runtime_kind,
            drill_limit,
            case_limit,
            guard=guard,
            sandbox=sandbox,
            only_checks=only_checks,
        )
    checks = _check_results(run)
    status = _drill_status(checks, run)
    message = run.problem
    if run.tampered:
        message = _charge_tampering(checks, run.tampered)
    elif status == Status.ERROR:
        message = next(c.message for c in checks if c.status == Status.ERROR)
    elif status == Status.NOT_STARTED:
        message = f"{_relative(source)} still raises NotStarted."
    return DrillResult(
        drill.id,
        drill.slug,
        drill.title,
        status,
        float(sum(c.score for c in checks)),
        float(sum(c.max_score for c in checks)) if checks else 100.0,
        round(time.monotonic() - started, 2),
        checks,
        message,
        _relative(source),
    )


def decided_at_once(drill: catalog.Drill, copy: Path | str, shown_as: str) -> DrillResult | None:
    """The grade of a file that needs no judge, from its private copy (private_copy): one that
    could not be copied, the untouched stub, or one that is not Python. Each scores 0, as the
    judge would give it, in the judge's words, in a fraction of a second (no torch, no judge);
    None for every other file."""
    if isinstance(copy, str):
        return _not_gradable(drill, copy, shown_as)
    if copy.read_bytes() == drill.stub.read_bytes():
        why = f"{shown_as} still raises NotStarted."
        failure = Failure.from_message(Kind.NOT_STARTED, why)
        return _every_check(drill, Status.NOT_STARTED, failure, why, shown_as)
    try:
        syntax.parse(copy, shown_as)
    except syntax.SourceError as e:
        failure = Failure.from_message(Kind.IMPORT_ERROR, str(e), line=e.line)
        return _every_check(drill, Status.ERROR, failure, str(e), shown_as)
    return None


def needs_a_judge(drill: catalog.Drill, impl: str) -> bool:
    """Whether `impl`'s file for `drill`, as it is now, is one a judge will run (decided_at_once
    has no grade for it): the grader starts the judge's image loading early for such a file.
    A forecast: the grade itself reads the private copy."""
    source = source_file(impl, drill.slug)
    with processes.scratch_folder("forecast-") as folder:
        # read as the grade reads it: never through a link, a FIFO or past the size limit
        copy = private_copy(source, Path(folder))
        return decided_at_once(drill, copy, _relative(source)) is None


def _every_check(
    drill: catalog.Drill, status: Status, failure: Failure, why: str, shown_as: str
) -> DrillResult:
    """Every scored check of the drill's suite with `status` and no points, none of its cases
    run, each failing with `failure` (`why`, in words); its extra checks not started (worth
    nothing, they need no reason of their own)."""
    failed = failure.to_json()
    checks = [
        CheckResult(c.name, status, 0.0, float(c.points), why, id=c.id, failure=failed)
        if not c.optional
        else CheckResult(c.name, Status.NOT_STARTED, 0.0, 0.0, why, scored=False, id=c.id)
        for c in drill.spec.checks
    ]
    most = float(sum(c.max_score for c in checks))
    return DrillResult(
        drill.id, drill.slug, drill.title, status, 0.0, most, 0.0, checks, why, shown_as
    )


def _not_gradable(drill: catalog.Drill, why: str, source: str) -> DrillResult:
    return DrillResult(
        drill.id, drill.slug, drill.title, Status.ERROR, 0.0, 100.0, 0.0, [], why, source
    )


def grade_or_report(drill: catalog.Drill, impl: str, runtime_kind: str, drill_limit=None, **kw):
    """grade(), except that a failure of the grader itself is reported as this drill's result,
    so the other drills are still graded and the JSON is still written."""
    try:
        return grade(drill, impl, runtime_kind, drill_limit, **kw)
    except Exception as e:  # noqa: BLE001 - any failure here must not stop the other drills
        return DrillResult(
            drill.id,
            drill.slug,
            drill.title,
            Status.CRASHED,
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
