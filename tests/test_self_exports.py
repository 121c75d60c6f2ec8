"""The repo's own tests of the course exports and the course recipes (course/).

Each export of a stub, a partly solved, a crashed, a timed-out, an unimportable, a missing and a
solved drill is read the way its consumer reads it, and must show the reason for every lost
point, the cases that did not run, and the native JSON's total:

- classroom: GitHub Classroom's own reporter (tests/consumers/classroom-reporter, run under
  node), which prints the log students see and records the points in Classroom;
- junit: checked against junit-10.xsd, and read as dorny/test-reporter and
  mikepenz/action-junit-report read it (their parsers follow; they need npm packages);
- gradescope and exercism: their published specs.

Then the recipes run end to end: the Gradescope bundle's run_autograder on a fake /autograder,
a Classroom grading step feeding the reporter, Exercism's run.sh. And an output path that
cannot be written is a usage error before any grading.
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from test_self_attacks import open_to_nobody  # the module pytest collects, from tests/

from drills import catalog, controls, exports, report, runtime
from drills.failures import Failure, Kind
from drills.grading import CheckResult, DrillResult

ROOT = catalog.ROOT
T1, T2 = catalog.find("t1"), catalog.find("t2")
# Where a course puts the submission: outside the repository, so the grader reports its files
# by absolute paths, which no export may show.
SUBMISSION = Path("/autograder/submission")
VERSIONS = {"python": "3.11.7", "torch": "2.14.1", "triton": "3.8.0"}
REPORTER = ROOT / "tests" / "consumers" / "classroom-reporter"
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
needs_node = pytest.mark.skipif(
    shutil.which("node") is None,
    reason="node is not installed: GitHub Classroom's reporter is JavaScript",
)


# ---------------------------------------------------------------------------------------------
# Results in every state a drill can end in, for the drills' real checks
# ---------------------------------------------------------------------------------------------


def suite_checks(drill: catalog.Drill) -> list[tuple[str, int]]:
    """(name, points) of each check of the drill's spec, in its order."""
    return [(c.name, c.points) for c in drill.spec.checks]


def check_in(state: str, i: int, source: str) -> tuple[str, str, str, dict | None]:
    """(status, message, case, failure) of the i-th scored check of a drill in `state`, the
    failure as the judge records it (drills.failures)."""
    if state == "solved" or (state == "crashed" and i != 1) or (state == "partial" and i % 2 == 0):
        return "passed", "", "", None
    if state == "partial" and i == 1:  # a learner's exception, control characters and all
        text = f"your code raised ValueError: \x1b[31mbad\x00 size\n    at {source}, line 21: x + y"
        return "failed", text, "fp16", judged(Kind.RAISED, text, "fp16", line=21)
    if state == "partial":
        label, text = f"n={1000 + i}", "wrote 24 elements outside the output.\nmask < n"
        failure = judged(Kind.WROTE_OUTSIDE, text, "", label=label)
        return "failed", f"case {label}: {text}", "", failure
    if state == "crashed":
        text = "the process crashed with a segmentation fault (SIGSEGV)."
        return "crashed", text, "1000", judged(Kind.CRASHED, text, "1000")
    if state == "timeout":
        if i < 2:
            return "passed", "", "", None
        if i == 2:
            text = "still running when the drill's 150 s ran out."
            return "timeout", text, "4097", judged(Kind.TIMEOUT, text, "4097")
        text = "not run: the drill ran out of time before this check."
        return "timeout", text, "", judged(Kind.TIMEOUT, text, "")
    if state == "stub":
        text = f"{source} still raises NotStarted."
        return "not_started", text, "4096", judged(Kind.NOT_STARTED, text, "4096")
    assert state == "error", state
    text = f"{source} has a syntax error on line 2: expected ':'"
    return "error", text, "4096", judged(Kind.IMPORT_ERROR, text, "4096", line=2)


def judged(kind: Kind, text: str, case: str, **where) -> dict:
    return Failure.from_message(kind, text, case=case, **where).to_json()


DRILL_STATUS = {
    "solved": "passed",
    "partial": "failed",
    "crashed": "crashed",
    "timeout": "timeout",
    "stub": "not_started",
    "error": "error",
}
STATES = [*DRILL_STATUS, "missing"]


def drill_result(drill: catalog.Drill, state: str) -> DrillResult:
    source = str(SUBMISSION / f"{drill.slug}.py")
    if state == "missing":
        message = f"{source} does not exist"
        return DrillResult(
            drill.id, drill.slug, drill.title, "error", 0.0, 100.0, 0.0, [], message, source
        )
    checks = []
    for i, (name, points) in enumerate(suite_checks(drill)):
        id = drill.spec.named(name).id
        gpu_only = ["2^24"] if i == 0 else []
        if points == 0:  # an extra check whose every case needs a GPU
            checks.append(
                CheckResult(
                    name, "skipped", 0.0, 0.0, "every case needs a GPU", "", ["2^31"], False, id=id
                )
            )
            continue
        status, message, case, failure = check_in(state, i, source)
        score = float(points) if status == "passed" else 0.0
        checks.append(
            CheckResult(
                name, status, score, float(points), message, case, gpu_only, failure=failure, id=id
            )
        )
    message = next((c.message for c in checks if state in ("stub", "error")), "")
    return DrillResult(
        drill.id,
        drill.slug,
        drill.title,
        DRILL_STATUS[state],
        sum(c.score for c in checks),
        sum(c.max_score for c in checks),
        12.5,
        checks,
        message,
        source,
    )


def native_of(results: list[DrillResult]) -> dict:
    # drills graded at once: the wall time is less than the sum of the drills' times
    longest, total = max(r.seconds for r in results), sum(r.seconds for r in results)
    seconds = longest + (total - longest) / 2
    return report.native_document(results, str(SUBMISSION), "interpreter", VERSIONS, seconds)


def lost(results: list[DrillResult]) -> list[tuple[DrillResult, CheckResult | None]]:
    """Every check that lost points, and every drill without checks."""
    rows = []
    for r in results:
        scored = [c for c in r.checks if c.scored]
        rows += [(r, c) for c in scored if c.status not in ("passed", "skipped")] or (
            [] if scored else [(r, None)]
        )
    return rows


def shows(text: str, reason: str) -> bool:
    """Whether `text` shows `reason`: every word of it, with paths relative to the submission,
    without the colours and control characters some consumers strip and some formats escape."""
    words = CONTROL.sub("", ANSI.sub("", reason.replace(f"{SUBMISSION}/", ""))).split()
    return all(word in text for word in words)


def message_of(r: DrillResult, c: CheckResult | None) -> str:
    return c.message if c else r.message


# ---------------------------------------------------------------------------------------------
# GitHub Classroom, through its reporter
# ---------------------------------------------------------------------------------------------


def run_reporter(payloads: dict[str, str]) -> tuple[int, str]:
    """The reporter's exit status and log, for runners fed as a Classroom workflow feeds them."""
    env = {f"{runner.upper()}_RESULTS": payload for runner, payload in payloads.items()}
    env |= {"PATH": os.environ["PATH"], "NODE_PATH": str(REPORTER / "shims")}
    env["INPUT_RUNNERS"] = ",".join(payloads)
    done = subprocess.run(
        ["node", str(REPORTER / "src" / "main.js")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, ANSI.sub("", done.stdout + done.stderr)


def recorded(log: str) -> dict:
    """What the reporter records in Classroom."""
    line = next(x for x in log.splitlines() if x.startswith("::notice title=Autograding report::"))
    return json.loads(line.split("::", 2)[2])


def table_total(log: str) -> tuple[float, float]:
    row = next(x for x in log.splitlines() if x.startswith("| Total:"))
    score, most = (cell.strip() for cell in row.strip("|").split("|")[1:])
    return float(score), float(most)


@needs_node
@pytest.mark.parametrize("state", STATES)
def test_classroom_reporter_shows_every_lost_point_and_the_native_total(state):
    results = [drill_result(T1, state)]
    native = native_of(results)
    status, log = run_reporter(exports.classroom(results, native))
    assert recorded(log) == {"totalPoints": native["score"], "maxPoints": native["max_score"]}, log
    assert table_total(log) == (native["score"], native["max_score"]), log
    for r, c in lost(results):
        assert shows(log, message_of(r, c)), f"{c and c.name}: {message_of(r, c)!r}\n{log}"
    for c in (c for r in results for c in r.checks if c.scored and c.skipped_cases):
        assert f"{c.name}: {c.score:g}/{c.max_score:g} (GPU-only cases not run: 2^24)" in log
    assert str(SUBMISSION) not in log
    assert status == (0 if state == "solved" else 1), log


# ---------------------------------------------------------------------------------------------
# JUnit: junit-10.xsd, and two GitHub Actions readers
# ---------------------------------------------------------------------------------------------

# junit-10.xsd (jenkinsci/xunit-plugin, commit 031e285ef3b60dee7aaf36e9096d7dcd95ffae83):
# element -> (its attributes, the required ones, the elements it may contain)
JUNIT_10 = {
    "testsuites": ({"name", "time", "tests", "failures", "errors"}, set(), {"testsuite"}),
    "testsuite": (
        {"name", "tests", "failures", "errors", "group", "time", "skipped", "timestamp"}
        | {"hostname", "id", "package", "file", "log", "url"},
        {"name", "tests", "failures", "errors"},
        {"testsuite", "properties", "testcase", "system-out", "system-err"},
    ),
    "testcase": (
        {"name", "time", "classname", "group"},
        {"name"},
        {"skipped", "error", "failure", "system-out", "system-err"}
        | {"rerunFailure", "rerunError", "flakyFailure", "flakyError"},
    ),
    **{tag: ({"type", "message"}, set(), set()) for tag in ("failure", "error", "skipped")},
}
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")


def junit_10_problems(element: ElementTree.Element) -> list[str]:
    assert element.tag in JUNIT_10, element.tag
    allowed, required, children = JUNIT_10[element.tag]
    problems = [f"<{element.tag}> has {a}" for a in element.attrib.keys() - allowed]
    problems += [f"<{element.tag}> lacks {a}" for a in required - element.attrib.keys()]
    problems += [f"<{element.tag}> holds <{e.tag}>" for e in element if e.tag not in children]
    timed = element.tag in ("testsuites", "testsuite") and "time" in element.attrib
    if timed and not SUREFIRE_TIME.fullmatch(element.get("time")):
        problems.append(f"<{element.tag}> time={element.get('time')!r}")
    return problems + [p for e in element if e.tag in JUNIT_10 for p in junit_10_problems(e)]


def parse_float(text: str | None) -> float:
    """JavaScript's parseFloat, as both readers use it: NaN for a missing attribute."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def dorny_view(root: ElementTree.Element) -> list[dict]:
    """Each test as dorny/test-reporter's java-junit parser reads it
    (src/parsers/java-junit/java-junit-parser.ts, commit 29672c52a8220c09bd9f79b5b6cf6315f1763996):
    failed when it holds a failure or an error, the first failure's (else error's) message, and
    its text as the details."""
    tests = []
    for case in root.iter("testcase"):
        issue = case.find("failure") if case.find("failure") is not None else case.find("error")
        result = (
            "failed"
            if issue is not None
            else "skipped"
            if case.find("skipped") is not None
            else "success"
        )
        message = None if issue is None else issue.get("message")
        if issue is not None and issue.get("type"):
            message = f"{issue.get('type')}: {message}"
        tests.append(
            {
                "name": case.get("name"),
                "result": result,
                "ms": parse_float(case.get("time")) * 1000,
                "message": message,
                "details": None if issue is None else issue.text,
            }
        )
    return tests


def mikepenz_view(root: ElementTree.Element) -> dict:
    """The annotations and counts of mikepenz/action-junit-report (src/testParser.ts, commit
    305cd1f47a0fbd606dfeacc59048ea5595ea0a96): a failed test is annotated on the testcase's
    file, else its failure's, else its testsuite's, at the line of a `line` attribute, else of
    the last ' <file>...:<digits>' in its text, else line 1 (resolveFileAndLine); with its
    message attribute, else the first two lines of its text, else its name, and its text as the
    details; every testcase counted; times summed from the testcases."""
    annotations, tests, skipped, seconds = [], 0, 0, 0.0
    for suite in root.iter("testsuite"):
        for case in suite.findall("testcase"):
            tests += 1
            seconds += parse_float(case.get("time")) if case.get("time") is not None else 0
            skipped += case.find("skipped") is not None
            for issue in [*case.findall("failure"), *case.findall("error")]:
                trace = (issue.text or "").strip()
                file = case.get("file") or issue.get("file") or suite.get("file")
                found = re.findall(rf" [^ ]*{re.escape(file)}.*?:\d+", trace)
                annotations.append(
                    {
                        "file": file,
                        "line": int(found[-1].split(":")[-1]) if found else 1,
                        "title": case.get("name"),
                        "message": (
                            issue.get("message")
                            or "\n".join(trace.split("\n")[:2])
                            or case.get("name")
                        ).strip(),
                        "details": trace,
                    }
                )
    return {"annotations": annotations, "tests": tests, "skipped": skipped, "seconds": seconds}


@pytest.mark.parametrize("state", STATES)
def test_junit_is_valid_and_its_readers_show_every_reason(state):
    results = [drill_result(T1, state), drill_result(T2, "solved")]
    # the XML parser itself refuses a control character: this is what makes the file readable
    root = ElementTree.fromstring(exports.junit(results, native_of(results)))
    assert junit_10_problems(root) == []
    for attribute in ("tests", "failures", "errors"):
        assert int(root.get(attribute)) == sum(int(s.get(attribute)) for s in root)
    for suite, r in zip(root, results, strict=True):
        for attribute, tag in (("tests", "testcase"), ("failures", "testcase/failure")):
            assert int(suite.get(attribute)) == len(suite.findall(tag))
        assert int(suite.get("errors")) == len(suite.findall("testcase/error"))
        assert int(suite.get("skipped")) == len(suite.findall("testcase/skipped"))
        assert float(suite.get("time")) == pytest.approx(r.seconds, abs=0.01)

    dorny = dorny_view(root)
    assert all(not math.isnan(t["ms"]) for t in dorny), dorny
    mikepenz = mikepenz_view(root)
    assert mikepenz["seconds"] == pytest.approx(sum(r.seconds for r in results), abs=0.01)
    failed = [t for t in dorny if t["result"] == "failed"]
    assert len(failed) == len(mikepenz["annotations"]) == len(lost(results))
    for (r, c), shown, annotation in zip(
        lost(results), failed, mikepenz["annotations"], strict=True
    ):
        assert shown["name"] == annotation["title"] == (c.name if c else r.title)
        assert "\n" not in shown["message"] and "\n" not in annotation["message"]
        assert shows(shown["message"] + shown["details"], message_of(r, c)), shown
        assert shows(annotation["message"] + annotation["details"], message_of(r, c)), annotation
        # the learner's file as the learner knows it, at the line the reason names
        assert annotation["file"] == Path(r.source).name
        named = re.search(r", line (\d+)| on line (\d+)", message_of(r, c))
        assert annotation["line"] == (int(next(filter(None, named.groups()))) if named else 1)
    # one test per scored check: what did not run is in the check's system-out
    assert mikepenz["tests"] == sum(len([c for c in r.checks if c.scored]) or 1 for r in results)
    for r in results:
        for c in r.checks:
            for case in c.skipped_cases:
                assert case in ElementTree.tostring(root, encoding="unicode"), (c.name, case)


# ---------------------------------------------------------------------------------------------
# Gradescope and Exercism: their specs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", STATES)
def test_gradescope_numbers_per_drill_and_says_how_it_graded(state):
    results = [drill_result(T1, state), drill_result(T2, "partial")]
    native = native_of(results)
    document = exports.gradescope(results, native)
    assert str(SUBMISSION) not in json.dumps(document)
    tests = document["tests"]
    assert document["score"] == sum(t["score"] for t in tests) == native["score"]
    assert sum(t["max_score"] for t in tests) == native["max_score"]
    expected_numbers = [
        f"{r.id[1:]}.{n}"
        for r in results
        for n in range(1, 1 + (sum(c.scored for c in r.checks) or 1))
    ]
    assert [t["number"] for t in tests] == expected_numbers
    for t in tests:
        assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed"), t
    by_name = {t["name"]: t for t in tests}
    for r, c in lost(results):
        assert shows(by_name[f"{r.id} · {c.name if c else r.title}"]["output"], message_of(r, c))
    assert "CPU interpreter" in document["output"] and "python 3.11.7" in document["output"]
    # the wall time of the grade, not the sum of its drills', which ran at once
    assert document["execution_time"] == native["seconds"]
    assert native["seconds"] < sum(r.seconds for r in results) or state == "missing"
    for r in results:
        for c in r.checks:
            for case in c.skipped_cases:
                assert f"{r.id} · {c.name}" in document["output"] and case in document["output"]


@pytest.mark.parametrize("state", STATES)
def test_exercism_has_test_code_in_file_order(state):
    results = [drill_result(T1, state)]
    document = exports.exercism(results, native_of(results))
    assert document["version"] == 2
    if state in ("error", "missing"):  # no test ran at all
        assert document["status"] == "error" and shows(document["message"], results[0].message)
        return
    assert document["status"] == ("pass" if state == "solved" else "fail")
    assert document["message"] is None
    scored = [c for c in results[0].checks if c.scored]
    assert [t["name"].split(" > ")[1].split(" (GPU-only")[0] for t in document["tests"]] == [
        c.name for c in scored
    ]
    for test, c in zip(document["tests"], scored, strict=True):
        # the case: the first that failed, else the check's first, with its parameters
        cases = catalog.suite_cases(T1)[T1.spec.named(c.name).id]
        listed = next((k for k in cases if k.id == c.case), None)
        shown = listed or cases[0]
        assert test["test_code"].startswith(f"# {shown.function}"), test["test_code"]
        assert test["test_code"].endswith(shown.body) and "@check" not in test["test_code"]
        if c.case:
            assert test["test_code"].splitlines()[0].endswith(f"[{c.case}]")
        bound = shown.parameters if listed or not c.case else ()  # an unlisted case: none
        assert all(line in test["test_code"] for line in bound)
        assert test["status"] == {"passed": "pass", "failed": "fail", "not_started": "fail"}.get(
            c.status, "error"
        )
        if test["status"] != "pass":
            assert shows(test["message"], c.message), test


# ---------------------------------------------------------------------------------------------
# The grader's command line: every format from one grading, and output paths
# ---------------------------------------------------------------------------------------------


def grader(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "grader.py", *args],
        cwd=cwd,
        env=os.environ | {"NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
@needs_node
def test_grader_writes_every_format_with_the_native_total(tmp_path):
    impl = tmp_path / "submission"
    impl.mkdir()
    # partly solved, whatever sizes this run draws: it adds in float32, so only the dtype check
    # (int32 values past 2^24) fails
    (impl / "t1_add.py").write_text(
        controls.source_text(controls.NEGATIVES / "t1_add" / "adds_in_fp32.py")
    )
    paths = {fmt: tmp_path / "out" / f"{fmt}.out" for fmt in exports.FORMATS}
    done = grader(
        "t1", "--impl", str(impl), *(a for f, p in paths.items() for a in ("--format", f, str(p)))
    )
    assert done.returncode == 1, done.stdout + done.stderr
    native = json.loads(paths["native"].read_text())
    seen = [(c["name"], c["status"], c["message"][:300]) for c in native["drills"][0]["checks"]]
    assert 0 < native["score"] < native["max_score"], seen  # partly solved
    lost_messages = [
        c["message"]
        for d in native["drills"]
        for c in d["checks"]
        if c["scored"] and c["score"] < c["max_score"]
    ]

    gradescope = json.loads(paths["gradescope"].read_text())
    assert gradescope["score"] == native["score"]
    assert str(impl) not in paths["gradescope"].read_text()
    _, log = run_reporter(json.loads(paths["classroom"].read_text()))
    assert recorded(log) == {"totalPoints": native["score"], "maxPoints": native["max_score"]}
    suites = ElementTree.fromstring(paths["junit"].read_text())
    assert junit_10_problems(suites) == []
    exercism = json.loads(paths["exercism"].read_text())
    for message in lost_messages:
        first = message.splitlines()[0]
        assert first in log and first in paths["gradescope"].read_text()
        assert any(first in (t.get("message") or "") for t in exercism["tests"])
        issues = [*suites.iter("failure"), *suites.iter("error")]
        assert any(first in e.get("message") for e in issues)


@pytest.mark.parametrize("damage", ["a folder", "under a file", "asked twice"])
def test_an_output_path_that_cannot_be_written_fails_before_grading(tmp_path, damage):
    (tmp_path / "file").write_text("")
    bad = {"a folder": tmp_path, "under a file": tmp_path / "file" / "r.json"}.get(damage)
    args = (
        ["--json", str(bad)]
        if bad
        else ["--json", str(tmp_path / "r"), "--format", "junit", str(tmp_path / "r")]
    )
    started = time.monotonic()
    done = grader("t1", "--impl", "solutions", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "nothing was graded" in done.stderr and "Grading" not in done.stdout
    assert time.monotonic() - started < 30  # refused before torch is even imported
    words = {"a folder": "is a folder", "under a file": "is not a folder", "asked twice": "both"}
    assert words[damage] in done.stderr, done.stderr


def test_an_unknown_format_is_a_usage_error():
    done = grader("t1", "--format", "csv", "x.csv")
    assert done.returncode == 2 and "unknown format 'csv'" in done.stderr, done.stderr


# ---------------------------------------------------------------------------------------------
# The recipes, end to end
# ---------------------------------------------------------------------------------------------


def build_bundle(tmp_path: Path, *args: str) -> Path:
    """course/gradescope/build.py ARGS, into tmp_path: the zip."""
    bundle = tmp_path / "autograder.zip"
    built = subprocess.run(
        [sys.executable, "course/gradescope/build.py", *args, "--out", str(bundle)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    return bundle


def unpack_bundle(tmp_path: Path, *args: str) -> Path:
    """A bundle built with ARGS, laid out as Gradescope lays it out (in a temporary folder
    that stands for /autograder), with the .venv setup.sh would make: its root."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(build_bundle(tmp_path, *args)) as z:
        z.extractall(root / "source")
    (root / "source" / ".venv").symlink_to(Path(sys.prefix))  # what setup.sh would make
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    open_to_nobody(root / "source")
    return root


def run_autograder(root: Path, *prefix: str, timeout: int = 300) -> subprocess.CompletedProcess:
    """The bundle's run_autograder in the fake /autograder at `root` (after a command `prefix`,
    such as one that enters a cgroup)."""
    return subprocess.run(
        [*prefix, "bash", str(root / "run_autograder")],
        cwd=root,
        env=os.environ | {"AUTOGRADER_ROOT": str(root), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow
def test_gradescope_bundle_grades_a_submission_in_the_sandbox(tmp_path):
    with zipfile.ZipFile(build_bundle(tmp_path, "t1", "t2")) as z:
        names = z.namelist()
    assert {"setup.sh", "run_autograder", "grader.py", "DRILLS"} <= set(names)
    assert "SANDBOX_FLAGS" not in names  # by default --sandbox refuses to grade with less
    assert not any(n.startswith(("solutions/", "mine/")) and n[-1] != "/" for n in names)
    root = unpack_bundle(tmp_path, "t1", "t2")
    (root / "submission").mkdir()
    # the stub with a comment added, so that its runners run in the sandbox (the stub itself
    # is decided without them); t2's file is missing
    (root / "submission" / "t1_add.py").write_text(T1.stub.read_text() + "# started\n")
    done = run_autograder(root)
    assert done.returncode == 0, (
        done.stdout[-3000:] + done.stderr[-3000:]
    )  # the stub's 0 is a grade
    results = json.loads((root / "results" / "results.json").read_text())
    t1_tests = [t for t in results["tests"] if t["name"].startswith("t1 ")]
    assert results["score"] == 0 and len(t1_tests) == len([p for _, p in suite_checks(T1) if p])
    assert all("t1_add.py still raises NotStarted." in t["output"] for t in t1_tests)
    t2_tests = [t for t in results["tests"] if t["name"].startswith("t2 ")]
    assert [t["output"] for t in t2_tests] == ["t2_softmax.py does not exist"], t2_tests
    assert "make " not in json.dumps(results)  # Gradescope's students have no make
    # the submission's own path; a sandbox note may name the grader's (where nobody cannot run)
    assert str(root / "submission") not in json.dumps(results)
    graded_on = "a GPU" if runtime.current().is_gpu else "the CPU interpreter"
    assert "in the sandbox" in results["output"] and f"on {graded_on}" in results["output"]


def test_a_bundle_can_be_told_to_grade_with_a_weaker_sandbox(tmp_path):
    with zipfile.ZipFile(build_bundle(tmp_path, "--sandbox-accept-less")) as z:
        assert z.read("SANDBOX_FLAGS").decode().split() == ["--sandbox-accept-less"]
        assert "$sandbox_flags" in z.read("run_autograder").decode()


WORKFLOW = ROOT / "course" / "classroom" / "autograding.yml"


def workflow_steps() -> tuple[dict[str, str], str]:
    """The Classroom workflow's grading steps ({id: command}) and its reporter's runners."""
    text = WORKFLOW.read_text()
    steps = dict(re.findall(r"id: (t\d+)\n\s+run: (.+)", text))
    runners = re.search(r"runners: (.+)", text).group(1)
    return steps, runners


def runners_script() -> str:
    """The shell script of the workflow's step that lists the grading steps' runners."""
    text = WORKFLOW.read_text()
    block = re.search(r"id: runners\n\s+run: \|\n((?:\s{10}.*\n)+)", text).group(1)
    return textwrap.dedent(block)


def test_classroom_workflow_has_one_grading_step_per_drill():
    steps, runners = workflow_steps()
    assert steps == {
        d.id: f".venv/bin/python course/classroom/grade_step.py {d.id}" for d in catalog.DRILLS
    }
    assert runners == "${{ steps.runners.outputs.list }}"
    assert all(
        f"${{{{ steps.{d.id}.outputs.runners }}}}" in runners_script() for d in catalog.DRILLS
    )
    assert "run-autograding-tests:" in WORKFLOW.read_text()


@pytest.mark.parametrize("removed", [None, "t3"])
def test_the_reporters_runners_survive_a_removed_grading_step(removed, tmp_path):
    """An instructor who removes a drill's step leaves its output empty in the list's step:
    the reporter still gets a list of names, never an empty entry (which it refuses)."""
    script = runners_script()
    for d in catalog.DRILLS:
        given = "" if d.id == removed else f"{d.id}_one,{d.id}_two"
        script = script.replace(f"${{{{ steps.{d.id}.outputs.runners }}}}", given)
    output = tmp_path / "output"
    subprocess.run(["bash", "-c", script], env={"GITHUB_OUTPUT": str(output)}, check=True)
    [line] = output.read_text().splitlines()
    wanted = [f"{d.id}_{n}" for d in catalog.DRILLS if d.id != removed for n in ("one", "two")]
    assert line == "list=" + ",".join(wanted)


def run_grade_step(tmp_path: Path, impl: Path) -> tuple[subprocess.CompletedProcess, dict]:
    """The workflow's t1 grading step on `impl`, and the runners it hands the reporter."""
    github_env, github_output = tmp_path / "env", tmp_path / "output"
    steps, _ = workflow_steps()
    done = subprocess.run(
        [sys.executable, *steps["t1"].split()[1:], "--impl", str(impl)],  # with this Python
        cwd=ROOT,
        env=os.environ | {"GITHUB_ENV": str(github_env), "GITHUB_OUTPUT": str(github_output)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the drill failed; the step did not
    runners = dict(line.split("=", 1) for line in github_output.read_text().splitlines())["runners"]
    payloads = dict(line.split("=", 1) for line in github_env.read_text().splitlines())
    assert set(payloads) == {f"{r.upper()}_RESULTS" for r in runners.split(",")}
    return done, {r: payloads[f"{r.upper()}_RESULTS"] for r in runners.split(",")}


@needs_node
def test_classroom_step_feeds_the_reporter(tmp_path):
    empty = tmp_path / "submission"  # a drill file that is missing: graded at once
    empty.mkdir()
    _, runners = run_grade_step(tmp_path, empty)
    status, log = run_reporter(runners)
    assert status == 1 and recorded(log) == {"totalPoints": 0, "maxPoints": 100}, log
    assert "t1_add.py does not exist" in log and str(empty) not in log


def workflow_commands(log: str) -> list[str]:
    """The workflow commands a GitHub Actions runner would act on in `log`, as actions/runner
    reads a step's output: lines split at \\n, \\r\\n and \\r; '::name...::' after leading
    whitespace, '##[name...]' anywhere; none between '::stop-commands::TOKEN' and '::TOKEN::'."""
    commands, stopped_by = [], None
    for line in re.split(r"\r\n|\r|\n", log):
        text = line.lstrip()
        if stopped_by:
            stopped_by = None if text == f"::{stopped_by}::" else stopped_by
            continue
        if text.startswith("::stop-commands::"):
            stopped_by = text.removeprefix("::stop-commands::")
        elif text.startswith("::") and "::" in text[2:]:
            commands.append(text)
        elif "##[" in line and "]" in line.split("##[", 1)[1]:
            commands.append(line[line.index("##[") :])
    return commands


# Workflow commands inside a Python string literal, as a learner's file would raise them.
FORGED = (
    r"\n::notice title=Autograding report::{\"totalPoints\":100,\"maxPoints\":100}"
    r"\r::error::forged  ##[error]forged\x1b[2J\u202eevil"
)
SHOWN_FORGED = '{"totalPoints":100,"maxPoints":100}'


@needs_node
def test_a_check_message_starts_no_workflow_command():
    partial = drill_result(T1, "partial")
    hostile = "x\n  ::notice title=Autograding report::{}\r::error::y\nsee ##[error]z\x1b[2J"
    assert len(workflow_commands(hostile)) == 3  # what a runner would act on, unescaped
    failed = partial.checks[1]  # a check that lost its points, now with a hostile reason
    checks = [*partial.checks]
    checks[1] = CheckResult(failed.name, "failed", 0.0, failed.max_score, hostile, failed.case)
    results = [DrillResult(**{**partial.__dict__, "checks": checks})]
    native = native_of(results)
    shown = [t["output"] for t in exports.gradescope(results, native)["tests"]]
    shown += [
        e.get("message") for e in ElementTree.fromstring(exports.junit(results, native)).iter()
    ]
    assert all(workflow_commands(text or "") == [] for text in shown), shown
    _, log = run_reporter(exports.classroom(results, native))
    _, untouched = run_reporter(exports.classroom([partial], native_of([partial])))
    assert workflow_commands(log) == workflow_commands(untouched), log  # the reporter's own


@pytest.mark.slow
@needs_node
def test_a_learners_exception_forges_no_score_in_the_classroom_log(tmp_path):
    """A kernel file whose exception carries workflow commands, graded by the workflow's own
    step: neither the step's log nor the reporter's acts on any of them."""
    impl = tmp_path / "submission"
    impl.mkdir()
    solved = (ROOT / "solutions" / "t1_add.py").read_text()
    raising = f'    if x.numel() % 2:\n        raise ValueError("{FORGED}")\n'
    (impl / "t1_add.py").write_text(
        solved.replace("    check_inputs(x, y, out)\n", f"    check_inputs(x, y, out)\n{raising}")
    )
    done, runners = run_grade_step(tmp_path, impl)
    assert SHOWN_FORGED in done.stdout  # the learner's text is shown ...
    assert workflow_commands(done.stdout + done.stderr) == []  # ... and not acted on
    status, log = run_reporter(runners)
    assert SHOWN_FORGED in log
    reports = [c for c in workflow_commands(log) if "Autograding report" in c]
    assert status == 1 and len(reports) == 1 and 0 < recorded(log)["totalPoints"] < 100, log
    assert all(re.fullmatch(r"t1(_[a-z0-9]+)+", r) for r in runners), runners


def test_exercism_runner_exits_0_with_results(tmp_path):
    empty, out = tmp_path / "in", tmp_path / "out"
    empty.mkdir()
    out.mkdir()
    done = subprocess.run(
        ["bash", "course/exercism/run.sh", "t1-add", f"{empty}/", f"{out}/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr  # the grader itself exits 1
    results = json.loads((out / "results.json").read_text())
    assert results["status"] == "error" and "t1_add.py does not exist" in results["message"]
    assert str(empty) not in results["message"]


def in_a_read_only_container(*command: str) -> list[str]:
    """`command` as Exercism's production may run its image (docker run --read-only --network
    none): in a mount namespace of its own where the checkout and the home folder are read-only
    and no network is reachable, only the temporary folder and the solution's folder writable."""
    read_only = " && ".join(
        f"mount --bind {path} {path} && mount -o remount,bind,ro {path}"
        for path in (ROOT, Path.home())
    )
    return ["unshare", "--mount", "--net", "sh", "-c", f'{read_only} && exec "$@"', "ro", *command]


def can_make_read_only_mounts() -> bool:
    try:
        done = subprocess.run(in_a_read_only_container("true"), capture_output=True, timeout=30)
    except OSError:
        return False
    return done.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not can_make_read_only_mounts(), reason="needs unshare and mount (root)")
def test_exercism_image_grades_read_only_without_a_network(tmp_path):
    """The image's entry point is a link to run.sh, run as Exercism runs it: one folder for the
    solution and the results, with a trailing slash, a read-only image and no network."""
    entry = tmp_path / "bin" / "run.sh"
    entry.parent.mkdir()
    entry.symlink_to(ROOT / "course" / "exercism" / "run.sh")
    solution = tmp_path / "solution"
    solution.mkdir()
    shutil.copy(ROOT / "solutions" / "t1_add.py", solution)
    for slug, status in (("t1-add", "pass"), ("t9", "error")):
        done = subprocess.run(
            in_a_read_only_container(str(entry), slug, f"{solution}/", f"{solution}/"),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((solution / "results.json").read_text())
        assert results["status"] == status, results
    assert "no drill named 't9'" in results["message"], results
    assert sorted(p.name for p in solution.iterdir()) == ["results.json", "t1_add.py"]
