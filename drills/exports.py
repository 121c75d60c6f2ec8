"""Grade results in the formats course tools read, all from the same DrillResults, each shaped
for what its consumer shows.

- gradescope: Gradescope's results.json: one test per check, numbered per drill (1.1, 1.2 ...,
  2.1 ...), the reason for lost points as its output, and a top-level output that says where
  and how the grade was made and which cases did not run.
- exercism: Exercism's test-runner results.json, version 2: one test per check in file order,
  with the case it stands for as its test_code.
- classroom: payloads for GitHub Classroom's autograding-grading-reporter, one runner per check,
  named after it, as JSON ({"t1_adds_two_vectors": "<base64 of a runner result>", ...}). The reporter shows a runner's points
  as its max_score times the share of its tests that passed, while Classroom records the sum of
  the tests' scores: with one test per runner the two agree.
- junit: JUnit XML that junit-10.xsd accepts: one testsuite per drill (its file: the learner's
  file), one testcase per check with the reason's first line as its message, the whole reason
  and the line of the learner's file it names as its text, and the cases that did not run as
  system-out.

Extra (unscored) checks are left out, but for their cases that did not run. Paths in messages
are relative to the graded folder (t1_add.py, not /autograder/submission/t1_add.py).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING
from xml.etree import ElementTree

from drills import catalog
from drills.failures import Failure, Status

if TYPE_CHECKING:
    from drills.grading import CheckResult, DrillResult

FORMATS = ("native", "gradescope", "exercism", "classroom", "junit")
# Statuses of code that never reached a verdict, as opposed to one that was wrong.
ERRORS = (Status.ERROR, Status.CRASHED, Status.TIMEOUT)
# What XML 1.0 cannot hold at all, escaped or not: most control characters (ESC, NUL ...).
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# Words a runner's name leaves out of its check's name.
LITTLE_WORDS = {"a", "an", "the", "its", "of", "and", "to", "for", "with", "when", "is"}


# ---------------------------------------------------------------------------------------------
# What every format says: the reason for lost points, and what did not run
# ---------------------------------------------------------------------------------------------


def _scored(r: DrillResult) -> list[CheckResult]:
    return [c for c in r.checks if c.scored]


def _relative(text: str, r: DrillResult) -> str:
    """`text` with the learner's file as the learner knows it: the grader copies a submission
    folder outside the repository to wherever it likes (/autograder/submission)."""
    source = Path(r.source)
    if not source.is_absolute():
        return text
    return text.replace(f"{source.parent}{os.sep}", "")


def _reason(r: DrillResult, c: CheckResult | None) -> str:
    """Why the check (or, with None, the drill) lost its points, in the learner's terms."""
    if c is None:
        return _relative(r.message, r)
    text = c.message
    failure = Failure.from_json(c.failure) if c.failure else None
    if (
        c.case
        and c.status in (Status.FAILED, Status.CRASHED, Status.TIMEOUT)
        and not (failure and failure.label)
    ):
        text = f"case {c.case}: {text}"  # a crash's message does not say which case
    if r.message and r.message not in text:
        text += f"\n{r.message}"  # what happened to the whole drill (a tampered grader ...)
    return _relative(text, r)


def _status(r: DrillResult, c: CheckResult | None) -> str:
    return c.status if c else r.status


def _lost(c: CheckResult | None) -> bool:
    """Whether the check (None: a drill with no checks) lost points."""
    return c is None or c.status not in (Status.PASSED, Status.SKIPPED)


def _verdict(r: DrillResult, c: CheckResult | None) -> str:
    """pass, fail or error: the words of Exercism's and of Classroom's runners."""
    if not _lost(c):
        return "pass"
    return "error" if _status(r, c) in ERRORS else "fail"


def _not_run(c: CheckResult, runtime: str) -> str:
    """The cases of `c` that were skipped, and why; '' when every case ran."""
    if not c.skipped_cases:
        return ""
    which = "GPU-only cases not run" if runtime == "interpreter" else "cases skipped on this GPU"
    return f"{which}: {', '.join(c.skipped_cases)}"


def _skipped(results: list[DrillResult]) -> list[tuple[DrillResult, CheckResult]]:
    """Every check, scored or extra, with cases that did not run."""
    return [(r, c) for r in results for c in r.checks if c.skipped_cases]


def _where(native: dict) -> str:
    """Where and how the grade was made, in one line."""
    on = (
        "the CPU interpreter (TRITON_INTERPRET=1)"
        if native["runtime"] == "interpreter"
        else "a GPU"
    )
    versions = ", ".join(f"{name} {v}" for name, v in native["versions"].items())
    # what a sandbox lacked is the instructor's to read (stderr, the native JSON), not students'
    confined = "without --sandbox" if native.get("sandbox") is None else "in the sandbox"
    return f"Graded by Triton Drills on {on} with {versions}, {confined}."


def _summary(results: list[DrillResult], native: dict) -> str:
    """Where and how it was graded, each drill's points, and the cases that did not run."""
    lines = [_where(native), ""]
    for r in results:
        status = r.status.replace("_", " ")
        lines.append(f"{r.id} · {r.title}: {status}, {r.score:g}/{r.max_score:g}")
    lines.append(f"Total: {native['score']:g}/{native['max_score']:g}")
    skipped = _skipped(results)
    if skipped:
        lines += [
            "",
            "Cases that did not run here (they cost no points; "
            + ("only a GPU can run them):" if native["runtime"] == "interpreter" else "skipped):"),
        ]
        for r, c in skipped:
            extra = "" if c.scored else " (extra, not scored)"
            lines.append(f"  {r.id} · {c.name}{extra}: {', '.join(c.skipped_cases)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Gradescope
# ---------------------------------------------------------------------------------------------


def gradescope(results: list[DrillResult], native: dict) -> dict:
    tests = [
        _gradescope_test(r, c, number, native["runtime"])
        for r in results
        for number, c in enumerate(_scored(r) or [None], start=1)
    ]
    return {
        "score": sum(r.score for r in results),
        "execution_time": native["seconds"],
        "output": _summary(results, native),
        "tests": tests,
    }


def _gradescope_test(r: DrillResult, c: CheckResult | None, number: int, runtime: str) -> dict:
    notes = [_reason(r, c)] if _lost(c) else []
    if c is not None and _not_run(c, runtime):
        note = _not_run(c, runtime)
        notes.append(f"{note[0].upper()}{note[1:]}.")
    test = {
        "name": f"{r.id} · {c.name if c else r.title}",
        "number": f"{r.id[1:]}.{number}",
        "score": c.score if c else 0.0,
        "max_score": c.max_score if c else r.max_score,
        "output": "\n\n".join(n for n in notes if n),
    }
    # Gradescope knows passed and failed; a check none of whose cases ran is neither
    if c is None or c.status != Status.SKIPPED:
        test["status"] = "failed" if _lost(c) else "passed"
    return test


# ---------------------------------------------------------------------------------------------
# Exercism
# ---------------------------------------------------------------------------------------------


def exercism(results: list[DrillResult], native: dict) -> dict:
    if all(r.status == Status.ERROR for r in results):
        return {
            "version": 2,
            "status": "error",
            "message": "\n\n".join(f"{r.id}: {_reason(r, None)}" for r in results),
            "tests": [],
        }
    tests = [
        _exercism_test(r, c, native["runtime"])
        for r in results
        # Exercism has no status for a test that did not run: a check none of whose cases ran
        # is left out
        for c in _scored(r) or [None]
        if c is None or c.status != Status.SKIPPED
    ]
    failed = any(t["status"] != "pass" for t in tests)
    return {"version": 2, "status": "fail" if failed else "pass", "message": None, "tests": tests}


def _exercism_test(r: DrillResult, c: CheckResult | None, runtime: str) -> dict:
    name = f"{r.title} > {c.name if c else 'grading'}"
    if c is not None and _not_run(c, runtime):
        name += f" ({_not_run(c, runtime)})"
    status = _verdict(r, c)
    test = {"name": name, "status": status, "test_code": _test_code(r, c)}
    if status != "pass":
        test["message"] = _reason(r, c)
    return test


def _test_code(r: DrillResult, c: CheckResult | None) -> str:
    """The case a test stands for, as its suite runs it: the first that failed (or, for a
    check that passed, its first), with its test function, its parameters and the function's
    body; for a drill that could not be graded at all, the command that grades it."""
    if c is None:
        return f"python grader.py {r.id}"
    cases = _suite_cases(r.slug).get(c.id, [])
    if not cases:
        return ""
    found = next((case for case in cases if case.id == c.case), None)
    if found is None and c.case:  # a case the text does not list one by one
        found = catalog.SuiteCase(cases[0].function, c.case, (), cases[0].body)
    return (found or cases[0]).code()


@functools.cache
def _suite_cases(slug: str) -> dict[str, list[catalog.SuiteCase]]:
    return catalog.suite_cases(catalog.find(slug))


# ---------------------------------------------------------------------------------------------
# GitHub Classroom
# ---------------------------------------------------------------------------------------------


def classroom(results: list[DrillResult], native: dict) -> dict[str, str]:
    """{runner name: base64 of its JSON}: one runner per scored check, named after it
    (t1_adds_two_vectors), or the drill's id alone for a drill with no checks (its file
    missing). A check none of whose cases ran has no runner: the reporter has no status for a
    test that did not run."""
    payloads = {}
    for r in results:
        checks = [c for c in _scored(r) if c.status != Status.SKIPPED]
        if not checks:
            payloads[r.id] = _runner(r, None, r.seconds, native["runtime"])
        for c in checks:
            share = r.seconds / len(checks)
            payloads[_runner_name(r, c, payloads)] = _runner(r, c, share, native["runtime"])
    return payloads


def _runner_name(r: DrillResult, c: CheckResult, taken: dict) -> str:
    """The check's name as a runner's: the reporter's summary table shows it, and the workflow
    passes it on as part of an environment variable's name (T1_ADDS_TWO_VECTORS_RESULTS), so
    it is letters, digits and underscores: every word of the check's name but the little ones,
    never cut mid-phrase (the reporter's summary table cuts names at 18 characters itself; its
    other lines show them whole)."""
    words = re.findall(r"[a-z0-9]+", c.name.split("(")[0].lower())
    name = "_".join([r.id, *(w for w in words if w not in LITTLE_WORDS)])
    unique, number = name, 2
    while unique in taken:
        unique, number = f"{name}_{number}", number + 1
    return unique


def _runner(r: DrillResult, c: CheckResult | None, share: float, runtime: str) -> str:
    """One runner result, as the reporter reads it from a step's output: base64 of its JSON."""
    verdict = _verdict(r, c)
    score, most = (c.score, c.max_score) if c else (0.0, r.max_score)
    name = f"{r.id} · {c.name if c else r.title}: {score:g}/{most:g}"
    if c is not None and _not_run(c, runtime):
        name += f" ({_not_run(c, runtime)})"
    test = {
        "name": name,
        "status": "pass",
        "score": score,
        "message": "",
        "test_code": "",
        "filename": _relative(r.source, r),  # the file's name where it was graded elsewhere
        "line_no": 0,
        "duration": int(share * 1000),
    }
    if verdict != "pass":
        # The reporter prints a failed test's name and test_code, but of a test in error only
        # its message, without its name: so a lost check is a failed test, its reason in both
        # its message and its name, and its test_code the command that grades it again.
        reason = _reason(r, c)
        test.update(status="fail", name=f"{name}\n{reason}", message=reason)
        test["test_code"] = f"make grade DRILL={r.id}"
    runner = {"version": 1, "status": verdict, "max_score": most, "tests": [test]}
    return base64.b64encode(json.dumps(runner).encode()).decode()


# ---------------------------------------------------------------------------------------------
# JUnit
# ---------------------------------------------------------------------------------------------


def _xml_text(text: str) -> str:
    """`text` as XML can hold it: a control character a learner's exception carried (ESC, NUL)
    would make the whole file unreadable, so it is written out as \\x1b."""
    return NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def junit(results: list[DrillResult], native: dict) -> str:
    root = ElementTree.Element("testsuites", name="Triton Drills")
    for r in results:
        root.append(_junit_suite(r, native["runtime"]))
    for attribute in ("tests", "failures", "errors"):
        root.set(attribute, str(sum(int(suite.get(attribute)) for suite in root)))
    root.set("time", f"{native['seconds']:.3f}")
    return ElementTree.tostring(root, encoding="unicode")


def _junit_suite(r: DrillResult, runtime: str) -> ElementTree.Element:
    """One testcase per scored check, and nothing else, so that every reader counts the checks:
    the cases of a check that did not run are in its testcase's system-out, those of an extra
    check in the suite's."""
    checks = _scored(r) or [None]
    # The grader times drills, not checks: each check gets an equal share of its drill's time.
    each = f"{r.seconds / len(checks):.3f}"
    source = _relative(r.source, r)
    suite = ElementTree.Element(
        "testsuite", name=_xml_text(f"{r.id} · {r.title}"), file=_xml_text(source)
    )
    for c in checks:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            name=_xml_text(c.name if c else r.title),
            classname=r.slug,
            time=each,
        )
        outcome = _junit_outcome(r, c, runtime)
        if outcome:
            tag, reason = outcome
            ElementTree.SubElement(
                case, tag, message=_xml_text(reason.split("\n")[0])
            ).text = _xml_text(_with_location(reason, source, _line(r, c)))
        if c is not None and c.status != Status.SKIPPED and _not_run(c, runtime):
            ElementTree.SubElement(case, "system-out").text = _not_run(c, runtime)
    extras = [
        f"{c.name} (extra, not scored): {_not_run(c, runtime)}"
        for c in r.checks
        if not c.scored and c.skipped_cases
    ]
    if extras:
        ElementTree.SubElement(suite, "system-out").text = _xml_text("\n".join(extras))
    suite.set("tests", str(len(checks)))
    for attribute, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(attribute, str(len(suite.findall(f"testcase/{tag}"))))
    suite.set("time", f"{r.seconds:.3f}")
    return suite


def _line(r: DrillResult, c: CheckResult | None) -> int | None:
    """The line of the learner's file the check's failure points at (a drill that did not run
    its checks: its first check's), or None."""
    c = c or next(iter(r.checks), None)
    return c.failure.get("line") if c is not None and c.failure else None


def _with_location(reason: str, source: str, line: int | None) -> str:
    """The reason, ending with ` at t1_add.py:21` when it points at a line of the learner's
    file: the form in which JUnit readers (mikepenz/action-junit-report) find the line to
    annotate, which junit-10.xsd has no attribute for."""
    return f"{reason}\n    at {source}:{line}" if line else reason


def _junit_outcome(r: DrillResult, c: CheckResult | None, runtime: str) -> tuple[str, str] | None:
    """(failure, error or skipped; the reason) for a check that did not pass, else None."""
    if c is not None and c.status == Status.SKIPPED:
        return "skipped", _not_run(c, runtime)
    if not _lost(c):
        return None
    return ("error" if _status(r, c) in ERRORS else "failure"), _reason(r, c)


# ---------------------------------------------------------------------------------------------
# Writing them
# ---------------------------------------------------------------------------------------------


def render(fmt: str, results: list[DrillResult], native: dict) -> str:
    """The text of one export; `native` is the grader's own JSON document."""
    if fmt == "native":
        return json.dumps(native, indent=2) + "\n"
    if fmt == "junit":
        return junit(results, native) + "\n"
    exporter = {"gradescope": gradescope, "exercism": exercism, "classroom": classroom}[fmt]
    return json.dumps(exporter(results, native), indent=2) + "\n"


def unwritable(path: Path) -> str:
    """Why the grader could not write `path`, or '' if it can. Asked before grading, so that a
    mistyped path costs a usage error, not the whole grading run."""
    if path.is_dir():
        return f"{path} is a folder"
    if path.exists():
        return "" if os.access(path, os.W_OK) else f"{path} is not writable"
    folder = path.parent
    while not folder.exists():  # missing folders are made
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot create files in {folder}"
    return ""


def write(requests: list[tuple[str, Path]], results: list[DrillResult], native: dict) -> list[str]:
    """Write each (format, path) asked for; what could not be written, one line each (the others
    are written all the same)."""
    problems = []
    for fmt, path in requests:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(render(fmt, results, native))
        except OSError as e:
            problems.append(f"could not write the {fmt} result to {path}: {e.strerror or e}")
    return problems
