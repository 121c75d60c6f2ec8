"""`python grader.py [DRILL ...] [--impl mine|solutions|FOLDER] [--json PATH]
[--format gradescope|exercism|classroom|junit|native PATH]`

Exit status: 0 when every selected drill passed, 1 when one did not, 2 for a usage or
environment error.
"""

import argparse
import sys
from pathlib import Path

from drills import catalog, exports


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="grader.py", description="Grade the Triton drills.")
    parser.add_argument(
        "drills",
        nargs="*",
        metavar="DRILL",
        help="drill ids or names (t1, t1_add); default: all, in order",
    )
    parser.add_argument(
        "--impl",
        default="mine",
        help="what to grade: mine (default), solutions, or a folder of tN_*.py",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the result as JSON")
    parser.add_argument(
        "--format",
        nargs=2,
        action="append",
        default=[],
        metavar=("FORMAT", "PATH"),
        help="also write the result for a course tool: gradescope (results.json), exercism, "
        "classroom (GitHub Classroom reporter payloads), junit, or native; may be repeated",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="time allowed per drill (default: 150 on the CPU, 600 on a GPU)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list the checks of every drill, not only the first unfinished one",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        selected = [catalog.find(name) for name in args.drills] or catalog.DRILLS
    except KeyError as e:
        print(f"grader.py: {e.args[0]}", file=sys.stderr)
        return 2
    unknown = [fmt for fmt, _ in args.format if fmt not in exports.FORMATS]
    if unknown:
        print(
            f"grader.py: unknown format {unknown[0]!r}; the formats are "
            f"{', '.join(exports.FORMATS)}",
            file=sys.stderr,
        )
        return 2
    if args.impl not in ("mine", "solutions") and not Path(args.impl).is_dir():
        print(
            f"grader.py: --impl must be mine, solutions or a folder; {args.impl!r} is none",
            file=sys.stderr,
        )
        return 2
    try:
        from drills import grading, report, runtime, state

        rt = runtime.current()
        versions = runtime.versions()
    except ImportError as e:
        print(
            f"grader.py: the environment is broken: {e}. Run `make grade`, which sets up "
            ".venv, or install the packages in pyproject.toml.",
            file=sys.stderr,
        )
        return 2
    impl = args.impl if args.impl in ("mine", "solutions") else str(Path(args.impl).resolve())
    title = report.heading(args.impl, rt.description, versions)
    print(title, flush=True)
    results = [grading.grade_or_report(drill, impl, rt.kind, args.time_limit) for drill in selected]
    requests = [("native", args.json)] if args.json else []
    requests += [(fmt, Path(path)) for fmt, path in args.format]
    report.write_exports(
        requests, results, report.native_document(results, args.impl, rt.kind, versions)
    )
    if args.impl == "mine":
        state.record_grades(results)
    report.show(results, args.impl, verbose=args.verbose)
    return 0 if all(r.status == "passed" for r in results) else 1
