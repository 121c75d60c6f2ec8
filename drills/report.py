"""What the grader prints, and the JSON it writes."""

import shlex
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from drills import catalog, chinese
from drills.failures import SHOWN_BY_STATUS, Failure, Kind, Outcome, Status
from drills.grading import CheckResult, DrillResult

STYLE = {
    Status.PASSED: "green",
    Status.FAILED: "red",
    Status.NOT_STARTED: "yellow",
    Status.ERROR: "red",
    Status.CRASHED: "red",
    Status.TIMEOUT: "red",
    Status.SKIPPED: "dim",
}
MARK = {Status.PASSED: "✓", Status.SKIPPED: "-", Status.NOT_STARTED: "·"}


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
    if c.status == Status.NOT_STARTED and not c.scored:
        line.append("  (not attempted)", STYLE[c.status])
    elif c.status not in (Status.PASSED, Status.FAILED, Status.SKIPPED):
        line.append(f"  ({c.status.replace('_', ' ')})", STYLE[c.status])
    if c.skipped_cases:
        line.append(f"  [{len(c.skipped_cases)} GPU-only case(s) skipped]", "dim")
    if not c.scored:
        line.append("  (extra, not scored)", "dim")
    return line


CASE_MARK = {
    Outcome.PASSED: "✓",
    Outcome.FAILED: "✗",
    Outcome.SKIPPED: "GPU only",
    Outcome.NOT_RUN: "not run",
}


def _cases_line(c: CheckResult) -> Text:
    """V=1: each case of the check, by its id, with what became of it."""
    shown = [
        f"{case['case']} {CASE_MARK.get(case['outcome'], case['outcome'])}" for case in c.cases
    ]
    return Text("      cases: " + " · ".join(shown), "dim")


def _drill_after(results: list[DrillResult]) -> catalog.Drill | None:
    """The drill that follows the last one graded here, if there is one."""
    if not results:
        return None
    order = [d.id for d in catalog.DRILLS]
    following = order.index(results[-1].id) + 1
    return catalog.DRILLS[following] if following < len(order) else None


def first_unfinished(results: list[DrillResult]) -> DrillResult | None:
    return next((r for r in results if r.status != Status.PASSED), None)


def _grade_command(drill_id: str, impl: str, check_text: str = "") -> str:
    command = f"make grade DRILL={drill_id}" + ("" if impl == "mine" else f" IMPL={impl}")
    return command + (f" CHECK={shlex.quote(check_text)}" if check_text else "")


# The Next: line, per language: what to do after a grade.
NEXT_WORDS = {
    "en": {
        "again_watching": "save it: watch grades it again",
        "again": "run `{command}`",
        "not_started": "Next: read {lesson}, fill in the TODOs in {source} (start by deleting "
        "the `raise NotStarted` line), then {again}.",
        "error": "Next: make {source} importable (the error is above), then {again}.",
        "stopped": "Next: see above what stopped the grading of {source}, then {again}.",
        "one_problem": "the one problem above, which every failing check ran into,",
        "fix": "Next: fix {what} in {source} (lesson: {lesson}), then {again}.",
        "checks_pass": "Next: the checks matching {text!r} pass; grade the whole drill: "
        "`{command}`.",
        "all_pass": "Next: every selected drill passes. Compare your kernels with solutions/ "
        "and try the experiments in each drill's notes.",
        "still_watching": " Watch keeps watching {source} (Ctrl-C stops it).",
        "watch_stays": "Next: {drill} (read {lesson}). Watch stays on {source}, as you asked, "
        "and grades each save; for {id}, stop it (Ctrl-C) and run `make watch DRILL={id}`.",
        "watch_moves": "Next: watch moves on to {drill}: read {lesson} and edit {mine}; every "
        "save grades it.",
        "next_drill": "Next: {drill}: read {lesson}, then run `make grade DRILL={id}`.",
    },
    "zh": {
        "again_watching": "保存文件：watch 会重新评分",
        "again": "运行 `{command}`",
        "not_started": "下一步：读 {lesson}，完成 {source} 里的 TODO（先删掉 `raise NotStarted` "
        "那一行），然后{again}。",
        "error": "下一步：先让 {source} 能被导入（错误见上文），然后{again}。",
        "stopped": "下一步：看上文是什么让 {source} 的评分停了下来，然后{again}。",
        "one_problem": "上面那个所有失败的检查项都遇到的问题",
        "fix": "下一步：在 {source} 里修好{what}（课文：{lesson}），然后{again}。",
        "checks_pass": "下一步：匹配 {text!r} 的检查项都通过了；给整个练习评分：`{command}`。",
        "all_pass": "下一步：选中的练习都通过了。和 solutions/ 里的参考答案对照，再试试各课"
        "说明里的实验。",
        "still_watching": "watch 继续盯着 {source}（Ctrl-C 停止）。",
        "watch_stays": "下一步：{drill}（读 {lesson}）。按你的要求，watch 留在 {source}，"
        "每次保存都评分；要做 {id}，先按 Ctrl-C 停止，再运行 `make watch DRILL={id}`。",
        "watch_moves": "下一步：watch 换到 {drill}：读 {lesson}，编辑 {mine}；每次保存都评分。",
        "next_drill": "下一步：{drill}：读 {lesson}，然后运行 `make grade DRILL={id}`。",
    },
}


def next_step(
    r: DrillResult | None,
    impl: str,
    results: list[DrillResult] = (),
    *,
    check_text: str = "",
    watching: str | None = None,
    language: str = "en",
) -> str:
    """The `Next:` line: what to do after this grade, in `language`. `check_text`: only the
    checks whose names hold it were run; `watching`: `make watch` ran the grade, and grades
    again on every save, moving on after a pass ("course") or staying on the drill it was given
    ("drill")."""
    words = NEXT_WORDS[language]
    if r is None:
        return _next_after_a_pass(impl, results, check_text, watching, language)
    drill = catalog.find(r.id)
    lesson = drill.in_language(drill.lesson, language).relative_to(catalog.ROOT)
    command = _grade_command(r.id, impl, check_text)
    again = words["again_watching"] if watching else words["again"].format(command=command)
    if r.status in (Status.NOT_STARTED, Status.ERROR):
        return words[r.status].format(lesson=lesson, source=r.source, again=again)
    if not failing_checks(r):  # the grading stopped before any check: the message says why
        return words["stopped"].format(source=r.source, again=again)
    first, *others = failing_checks(r)
    if others and all(c.message == first.message for c in others):
        what = words["one_problem"]
    else:
        what = f'"{first.name}"'
    return words["fix"].format(what=what, source=r.source, lesson=lesson, again=again)


def _next_after_a_pass(
    impl: str, results: list[DrillResult], check_text: str, watching: str | None, language: str
) -> str:
    words = NEXT_WORDS[language]
    if check_text:
        whole = _grade_command(results[0].id, impl)
        return words["checks_pass"].format(text=check_text, command=whole)
    after = _drill_after(results) if impl == "mine" else None
    if after is None:
        done = words["all_pass"]
        if watching:
            done += words["still_watching"].format(source=results[-1].source)
        return done
    lesson = after.in_language(after.lesson, language).relative_to(catalog.ROOT)
    named = f"{after.id} · {after.title}"
    if watching == "drill":
        source = results[-1].source
        return words["watch_stays"].format(drill=named, lesson=lesson, source=source, id=after.id)
    if watching:
        mine = after.source("mine").relative_to(catalog.ROOT)
        return words["watch_moves"].format(drill=named, lesson=lesson, mine=mine)
    return words["next_drill"].format(drill=named, lesson=lesson, id=after.id)


def failure_of(c: CheckResult) -> Failure:
    """The check's first failing case as the judge recorded it; for a check that failed with
    no record (a grade from before records), its message whole, as its symptom."""
    if c.failure:
        return Failure.from_json(c.failure)
    return Failure(SHOWN_BY_STATUS.get(c.status, Kind.GRADER_FAILED), c.message, case=c.case)


def where(c: CheckResult, failure: Failure) -> str:
    """The check, and the case by its name in the message (else by its id)."""
    case = failure.label or failure.case or c.case
    return f"check: {c.name}" + (f" · case {case}" if case else "")


def show(
    results: list[DrillResult],
    impl: str,
    verbose: bool = False,
    *,
    check_text: str = "",
    watching: str | None = None,
    language: str = "en",
) -> None:
    """The terminal report. `check_text`: only the checks whose names hold it were run.
    `language` "zh": each failure's kind and advice in Chinese too (drills.chinese)."""
    out = console()
    out.print()
    out.print(drill_table(results))
    total, most = sum(r.score for r in results), sum(r.max_score for r in results)
    only = f" for the checks matching {check_text!r} only" if check_text else ""
    out.print(Text(f"\nTotal {_points(total)}/{_points(most)}{only}", "bold"))
    focus = first_unfinished(results)
    for r in results:
        if verbose or check_text or r is focus:
            out.print(Text(f"\n{r.id} · {r.title}", "bold"))
            for c in r.checks:
                out.print(_check_line(c))
                if verbose and c.cases:
                    out.print(_cases_line(c))
    for r in results:
        for c in r.checks:
            if c.status == Status.PASSED and c.message:
                out.print(Text(f"\nNote · {r.id} · {c.name}", "bold"))
                out.print(c.message, markup=False)
            if not c.scored and c.status not in (Status.PASSED, Status.SKIPPED, Status.NOT_STARTED):
                out.print()
                title = f"Extra check (not scored) · {r.id}"
                _print_in_full(out, title, "bold", c, failure_of(c), language)
    if focus is not None:
        _show_failures(out, focus, language)
    out.print()
    out.print(
        Text(
            next_step(
                focus, impl, results, check_text=check_text, watching=watching, language=language
            ),
            "bold",
        )
    )


def _show_failures(out: Console, r: DrillResult, language: str) -> None:
    """The unfinished drill's first failure in full; then the checks that failed the same way,
    each with its case; then every other failing check's symptom, check and case, and advice."""
    out.print()
    if r.status in (Status.NOT_STARTED, Status.ERROR) or (r.message and not r.checks):
        out.print(Text(f"{r.id} · {r.status.replace('_', ' ')}", "bold " + STYLE[r.status]))
        if language == "zh":
            _print_in_chinese(out, chinese.BY_STATUS.get(r.status, chinese.GENERAL))
        out.print(r.message, markup=False)
        return
    first, *others = failing_checks(r)
    style = "bold " + STYLE[first.status]
    failure = failure_of(first)
    _print_in_full(out, f"First failure: {r.id}", style, first, failure, language, r.message)
    same = [c for c in others if c.message == first.message]
    if same:
        out.print(Text("\nAlso failing the same way:", "bold"))
    for c in same:
        out.print(Text("  " + where(c, failure_of(c)), "dim"))
    told = {failure.kind}  # kinds whose Chinese advice is on the screen already
    different = [c for c in others if c.message != first.message]
    if different:
        out.print(Text("\nAlso failing (each its own first case):", "bold"))
    for c in different:
        failure = failure_of(c)
        out.print(Text(f"✗ {failure.symptom}", STYLE[c.status]))
        if language == "zh":
            _print_in_chinese(out, chinese.words_for(failure.kind), failure.kind in told)
            told.add(failure.kind)
        out.print(Text("  " + where(c, failure), "dim"))
        if failure.advice:
            out.print("  " + failure.advice, markup=False)


def _print_in_full(
    out: Console,
    title: str,
    style: str,
    c: CheckResult,
    failure: Failure,
    language: str,
    more: str = "",
) -> None:
    """A failure headed by its symptom (and under zh its kind and advice in Chinese), then the
    check and case, then everything else."""
    out.print(Text(f"{title} · {failure.symptom}", style))
    if language == "zh":
        _print_in_chinese(out, chinese.words_for(failure.kind))
    out.print(Text("  " + where(c, failure), "dim"))
    out.print("\n".join(filter(None, (failure.details, more))), markup=False)


def _print_in_chinese(out: Console, words: chinese.Words, told: bool = False) -> None:
    """The failure's kind and, unless it was told already, its advice, in Chinese."""
    out.print(Text(f"  {words.name}：", "bold") + Text("建议见上文。" if told else words.advice))


def failing_checks(r: DrillResult) -> list[CheckResult]:
    return [c for c in r.checks if c.scored and c.status not in (Status.PASSED, Status.SKIPPED)]


def native_document(
    results: list[DrillResult],
    impl: str,
    runtime_kind: str,
    versions: dict[str, str],
    seconds: float,
) -> dict:
    """The grader's own JSON (DESIGN.md's schema, and `seconds`: the grade's wall time; drills
    graded at once overlap, so it is less than the sum of theirs)."""
    return {
        "impl": impl,
        "runtime": runtime_kind,
        "versions": versions,
        "score": sum(r.score for r in results),
        "max_score": sum(r.max_score for r in results),
        "seconds": round(seconds, 2),
        "drills": [r.to_json() for r in results],
    }
