"""Grade results in the formats course tools read, all from the same DrillResults.

- gradescope: Gradescope's results.json (tests named "t1 · check", status passed/failed).
- exercism: Exercism's test-runner results.json, version 2 (tests in file order).
- classroom: GitHub Classroom's autograding-grading-reporter payload per drill, as JSON
  ({"t1": "<base64 of the runner result>", ...}): one runner step per drill.
- junit: JUnit XML, one testsuite per drill, one testcase per check.
"""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING
from xml.etree import ElementTree

if TYPE_CHECKING:
    from drills.grading import DrillResult

FORMATS = ("native", "gradescope", "exercism", "classroom", "junit")


def _check_rows(results: list[DrillResult]):
    for r in results:
        if not r.checks:  # nothing ran: one row for the drill itself
            yield r, None
        for c in r.checks:
            if c.scored:
                yield r, c


def _message(r: DrillResult, c) -> str:
    if c is None:
        return r.message
    case = f"[case {c.case}] " if c.case else ""
    return f"{case}{c.message}" if c.message else ""


def gradescope(results: list[DrillResult]) -> dict:
    tests = []
    for number, (r, c) in enumerate(_check_rows(results), start=1):
        name = f"{r.id} · {c.name if c else r.title}"
        score, most = (c.score, c.max_score) if c else (0.0, r.max_score)
        tests.append(
            {
                "name": name,
                "number": f"{r.id[1:]}.{number}",
                "score": score,
                "max_score": most,
                "status": "passed"
                if score == most and (c is None or c.status == "passed")
                else "failed",
                "output": _message(r, c),
            }
        )
    return {
        "score": sum(r.score for r in results),
        "execution_time": round(sum(r.seconds for r in results), 2),
        "tests": tests,
    }


def exercism(results: list[DrillResult]) -> dict:
    if all(r.status == "error" for r in results):
        return {
            "version": 2,
            "status": "error",
            "message": "\n\n".join(f"{r.id}: {r.message}" for r in results),
        }
    tests = []
    for r, c in _check_rows(results):
        status = (
            "pass"
            if c is not None and c.status == "passed"
            else ("error" if c is None or c.status in ("error", "crashed", "timeout") else "fail")
        )
        test = {"name": f"{r.title} > {c.name if c else 'grading'}", "status": status}
        if status != "pass":
            test["message"] = _message(r, c)
        tests.append(test)
    failed = any(t["status"] != "pass" for t in tests)
    return {"version": 2, "status": "fail" if failed else "pass", "message": None, "tests": tests}


def classroom(results: list[DrillResult]) -> dict:
    payloads = {}
    for r in results:
        status = {"passed": "pass", "error": "error", "crashed": "error", "timeout": "error"}.get(
            r.status, "fail"
        )
        runner = {
            "version": 1,
            "status": status,
            "max_score": r.max_score,
            "tests": [
                {
                    "name": r.id,
                    "status": status,
                    "score": r.score,
                    "message": r.message or "",
                    "test_code": f"python grader.py {r.id}",
                    "filename": r.source,
                    "line_no": 0,
                    "duration": int(r.seconds * 1000),
                }
            ],
        }
        payloads[r.id] = base64.b64encode(json.dumps(runner).encode()).decode()
    return payloads


def junit(results: list[DrillResult]) -> str:
    suites = ElementTree.Element("testsuites")
    for r in results:
        rows = [c for c in r.checks if c.scored] or [None]
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=f"{r.id} {r.title}",
            tests=str(len(rows)),
            time=f"{r.seconds:.2f}",
        )
        for c in rows:
            case = ElementTree.SubElement(
                suite, "testcase", classname=r.slug, name=c.name if c else r.title
            )
            if c is None or c.status in ("error", "crashed", "timeout", "not_started"):
                status = c.status if c else r.status
                ElementTree.SubElement(case, "error", message=status).text = _message(r, c)
            elif c.status == "failed":
                ElementTree.SubElement(case, "failure", message="failed").text = _message(r, c)
    return ElementTree.tostring(suites, encoding="unicode")


def render(fmt: str, results: list[DrillResult], native: dict) -> str:
    """The text of one export; `native` is the grader's own JSON document."""
    if fmt == "native":
        return json.dumps(native, indent=2) + "\n"
    if fmt == "junit":
        return junit(results) + "\n"
    return (
        json.dumps(
            {"gradescope": gradescope, "exercism": exercism, "classroom": classroom}[fmt](results),
            indent=2,
        )
        + "\n"
    )
