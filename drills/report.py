"""What the grader prints, and the JSON it writes."""

import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drills import catalog
from drills.grading import CheckResult, DrillResult

STYLE = {
    "passed": "green",
    "failed": "red",
    "not_started": "yellow",
    "error": "red",
    "crashed": "red",
    "timeout": "red",
    "skipped": "dim",
}
MARK = {"passed": "✓", "skipped": "-", "not_started": "·"}


def console() -> Console:
    # rich turns colour off by itself under NO_COLOR and when stdout is not a terminal; a log
    # file gets a width wide enough for the benchmark table
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def heading(impl: str, runtime_description: str, versions: dict[str, str]) -> str:
    what = f"{impl}/" if impl in ("mine", "solutions") else impl
    return (
        f"Grading {what} on {runtime_description} · torch {versions['torch']} · "
        f"triton {versions['triton']} · Python {versions['python']}"
    )


def _points(x: float) -> str:
    return f"{x:g}"


def drill_table(results: list[DrillResult]) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None)
    for column, justify in (
        ("drill", "left"),
        ("", "left"),
        ("status", "left"),
        ("points", "right"),
        ("time", "right"),
    ):
        table.add_column(column, justify=justify)
    for r in results:
        table.add_row(
            r.id,
            r.title,
            Text(r.status.replace("_", " "), STYLE[r.status]),
            f"{_points(r.score)}/{_points(r.max_score)}",
            f"{r.seconds:.1f}s",
        )
    return table


def _check_line(c: CheckResult) -> Text:
    mark = MARK.get(c.status, "✗")
    line = Text(f"  {mark} ", STYLE[c.status])
    line.append(f"{c.name} ")
    line.append(f"{_points(c.score)}/{_points(c.max_score)}", "dim")
    if c.status == "not_started" and not c.scored:
        line.append("  (not attempted)", STYLE[c.status])
    elif c.status not in ("passed", "failed", "skipped"):
        line.append(f"  ({c.status.replace('_', ' ')})", STYLE[c.status])
    if c.skipped_cases:
        line.append(f"  [{len(c.skipped_cases)} GPU-only case(s) skipped]", "dim")
    if not c.scored:
        line.append("  (extra, not scored)", "dim")
    return line


def _drill_after(results: list[DrillResult]) -> catalog.Drill | None:
    """The drill that follows the last one graded here, if there is one."""
    if not results:
        return None
    order = [d.id for d in catalog.DRILLS]
    following = order.index(results[-1].id) + 1
    return catalog.DRILLS[following] if following < len(order) else None


def first_unfinished(results: list[DrillResult]) -> DrillResult | None:
    return next((r for r in results if r.status != "passed"), None)


def next_step(r: DrillResult | None, impl: str, results: list[DrillResult] = ()) -> str:
    if r is None:
        after = _drill_after(results) if impl == "mine" else None
        if after is not None:
            lesson = after.lesson.relative_to(catalog.ROOT)
            return (
                f"Next: {after.id} · {after.title}: read {lesson}, then run "
                f"`make grade DRILL={after.id}`."
            )
        return (
            "Next: every selected drill passes. Compare your kernels with solutions/ and "
            "try the experiments in each drill's notes."
        )
    drill = catalog.find(r.id)
    lesson = drill.lesson.relative_to(catalog.ROOT)
    again = f"make grade DRILL={r.id}" + ("" if impl == "mine" else f" IMPL={impl}")
    if r.status == "not_started":
        return (
            f"Next: read {lesson}, fill in the TODOs in {r.source} (start by deleting the "
            f"`raise NotStarted` line), then run `{again}`."
        )
    if r.status == "error":
        return f"Next: make {r.source} importable (the error is above), then run `{again}`."
    failing = first_failing_check(r)
    return f'Next: fix "{failing.name}" in {r.source} (lesson: {lesson}), then run `{again}`.'


def show(results: list[DrillResult], impl: str, verbose: bool = False) -> None:
    out = console()
    out.print()
    out.print(drill_table(results))
    total, most = sum(r.score for r in results), sum(r.max_score for r in results)
    out.print(Text(f"\nTotal {_points(total)}/{_points(most)}", "bold"))
    focus = first_unfinished(results)
    for r in results:
        if verbose or r is focus:
            out.print(Text(f"\n{r.id} · {r.title}", "bold"))
            for c in r.checks:
                out.print(_check_line(c))
    for r in results:
        for c in r.checks:
            if c.status == "passed" and c.message:
                out.print(Text(f"\nNote · {r.id} · {c.name}", "bold"))
                out.print(c.message, markup=False)
            if not c.scored and c.status not in ("passed", "skipped", "not_started"):
                out.print(
                    Text(f"\nExtra check (not scored) · {r.id} · {c.name} [case {c.case}]", "bold")
                )
                out.print(c.message, markup=False)
    if focus is not None:
        out.print()
        title, body = _failure(focus)
        out.print(Text(title, "bold " + STYLE[focus.status]))
        out.print(body, markup=False)
        others = failing_checks(focus)[1:]
        if others:
            out.print(Text("\nAlso failing (each its own first case):", "bold"))
        for c in others:
            out.print(Text(f"✗ {c.name}", STYLE[c.status]))
            out.print(_gist(c.message), markup=False)
    out.print()
    out.print(Text(next_step(focus, impl, results), "bold"))


def failing_checks(r: DrillResult) -> list[CheckResult]:
    return [c for c in r.checks if c.scored and c.status not in ("passed", "skipped")]


def first_failing_check(r: DrillResult) -> CheckResult:
    return failing_checks(r)[0]


def _gist(message: str) -> str:
    """A check's message in two lines, indented: its first (the case and what went wrong) and
    its last (the advice for that mistake); the details between are the first failure's."""
    lines = [line for line in message.splitlines() if line.strip()]
    kept = lines if len(lines) <= 2 else [lines[0], lines[-1]]
    return "\n".join("  " + line for line in kept)


def _failure(r: DrillResult) -> tuple[str, str]:
    """The title and the full text of what to show about an unfinished drill."""
    if r.status in ("not_started", "error") or (r.message and not r.checks):
        return f"{r.id} · {r.status.replace('_', ' ')}", r.message
    c = first_failing_check(r)
    case = f" [case {c.case}]" if c.case else ""
    body = c.message + (f"\n{r.message}" if r.message else "")
    return f"First failure: {r.id} · {c.name}{case}", body


def native_document(
    results: list[DrillResult], impl: str, runtime_kind: str, versions: dict[str, str]
) -> dict:
    """The grader's own JSON (DESIGN.md's schema)."""
    return {
        "impl": impl,
        "runtime": runtime_kind,
        "versions": versions,
        "score": sum(r.score for r in results),
        "max_score": sum(r.max_score for r in results),
        "drills": [r.to_json() for r in results],
    }


def write_exports(
    requests: list[tuple[str, Path]], results: list[DrillResult], native: dict
) -> None:
    """Write each (format, path) asked for; see drills/exports.py for the formats."""
    from drills import exports

    for fmt, path in requests:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(exports.render(fmt, results, native))
