"""`python grader.py [DRILL ...] [--impl mine|solutions|FOLDER] [--check TEXT] [--json PATH]
[--format gradescope|exercism|classroom|junit|native PATH] [--sandbox [--sandbox-accept-less]]`

Exit status: 0 when every selected drill passed, 1 when one did not, 2 for a usage or
environment error (an output path that cannot be written is one, found before grading), 130 or
143 when interrupted (SIGINT, SIGTERM).
"""

import argparse
import os
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from drills import catalog, chinese, exports, resources
from drills.failures import Status
from drills.judge import forks

# What one drill's processes need on the interpreter (grader, judge, runner, the judge's kernel
# executor: three of them import torch), by torch's build. Measured with the Gradescope bundle
# (--sandbox) under cgroup v1 limits, all four references passing, one drill at a time: PyPI's
# torch 2.14.1 (triton 3.8.0), which maps CUDA's libraries into each process, peaked at 1385 MB
# at half a CPU and 1512 MB at one, and in 1024 MB processes were killed; the CPU-only torch
# 2.13.0+cpu (triton 3.9.0) peaked at 330-346 MB, and at 444 MB two drills at a time.
MEMORY_PER_DRILL = {"cuda": 1536 << 20, "cpu": 512 << 20}
# the seed asked for (DRILLS_SEED=N repeats a grade's inputs), read before any grade sets one
ASKED_SEED = os.environ.get("DRILLS_SEED")


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
        "--sandbox",
        action="store_true",
        help="for instructors, as root: run learner code as a user of its own, with limits, "
        "unable to read solutions/, tests/ or .git, and leave nothing running; refuses (exit "
        "2) where the machine cannot give one of these",
    )
    parser.add_argument(
        "--sandbox-accept-less",
        action="store_true",
        help="with --sandbox: grade with the protections the machine can give, and name the "
        "missing ones on stderr instead of refusing",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="list the checks of every drill, not only the first unfinished one, each with its "
        "cases and what became of them",
    )
    parser.add_argument(
        "--check",
        metavar="TEXT",
        help="run only the check of one drill whose id is TEXT, or those whose names contain it "
        "(any case); the drill's recorded grade is left as it was",
    )
    parser.add_argument(
        "--watching",
        nargs="?",
        const="course",
        choices=("course", "drill"),
        help="as run by `make watch`, which goes on to the next drill after a pass (course) or "
        "stays on the one it was given (drill): the Next line says what watching does next",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    chinese.keep_choice()
    language = chinese.language()
    try:
        selected = [catalog.find(name) for name in args.drills] or catalog.DRILLS
    except catalog.NotFound as e:
        print(f"grader.py: {e.said(language)}", file=sys.stderr)
        return 2
    words = REFUSED_WORDS[language]
    unknown = [fmt for fmt, _ in args.format if fmt not in exports.FORMATS]
    if unknown:
        formats = ", ".join(exports.FORMATS)
        return _refuse(words["unknown_format"].format(format=unknown[0], formats=formats))
    if args.impl not in ("mine", "solutions") and not Path(args.impl).is_dir():
        return _refuse(words["impl"].format(impl=args.impl))
    if args.sandbox_accept_less and not args.sandbox:
        return _refuse(words["accept_less"])
    requests = _export_requests(args)
    if args.check is not None and any(fmt != "native" for fmt, _ in requests):
        return _refuse(words["format_and_check"])
    problem = _output_problem(requests, words)
    if problem:
        return _refuse(problem)
    try:
        from drills import processes, runtime
        from drills import sandbox as sandboxing
        from drills.versions import unsupported

        versions = runtime.versions()
        problem = unsupported(versions, language) or _unwritable_cache(words)
        if problem:
            return _refuse(problem)
    except ImportError as e:
        return _refuse(words["broken"].format(error=e))
    if args.check is not None and len(selected) != 1:
        return _refuse(words["one_drill"])
    try:
        only_checks = _chosen_checks(args.check, selected)
    except catalog.NotFound as e:
        print(f"grader.py: {e.said(language)}", file=sys.stderr)
        return 2
    if _start_loading_the_judge(args, selected):
        from drills.versions import uncompiled, uncompiled_note

        folders = uncompiled()
        if folders:
            print(f"grader.py: {uncompiled_note(folders, language)}", file=sys.stderr)
    confinement = None
    try:
        rt = runtime.current()  # asks the driver (0.1 s) while the judge's image loads
        forks.loading_for(interpreting=not rt.is_gpu)
        limit = _too_little_memory(rt)
        if limit is not None:
            needed = memory_per_drill()
            smaller = words["smaller_torch"] if needed > MEMORY_PER_DRILL["cpu"] else ""
            said = words["memory"].format(limit=limit >> 20, needed=needed >> 20, smaller=smaller)
            return _refuse(said)
        processes.guard_this_process()
        try:
            confinement = sandboxing.confine(args.sandbox_accept_less) if args.sandbox else None
        except sandboxing.SandboxRefused as e:
            return _refuse(words["sandbox_refused"].format(reason=e))
        for note in confinement.notes if confinement else []:
            print(f"grader.py: {words['sandbox_without'].format(note=note)}", file=sys.stderr)
        _exit_cleanly_on_signals(confinement, words)
        return _grade(args, selected, requests, rt, versions, confinement, only_checks)
    finally:
        processes.kill_descendants(spare=kept_warm(args))
        if confinement:
            confinement.release()


def _unwritable_cache(words: dict) -> str | None:
    """Why triton's cache, which the judge compiles into (on the interpreter too: "compiles for
    a GPU"), cannot be written, or None: a home folder mounted read-only, as in a container run
    with --read-only, would otherwise fail every case as the grader's own failure."""
    from drills.judge.gpu_compile import judge_cache

    cache = os.environ.get("TRITON_CACHE_DIR") or os.path.expanduser("~/.triton/cache")
    try:
        fd, probe = tempfile.mkstemp(dir=judge_cache())
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        return words["cache"].format(cache=cache, error=e.strerror or e)
    return None


def _refuse(problem: str) -> int:
    print(f"grader.py: {problem}", file=sys.stderr)
    return 2


# What the grader says when it refuses to grade, stops, or cannot write a result, per language
# (the versions' line is drills.versions.unsupported's, a name that is not there
# catalog.NotFound's); what another module found (a path's problem, the sandbox's) stays in its
# own words inside these.
REFUSED_WORDS = {
    "en": {
        "unknown_format": "unknown format {format!r}; the formats are {formats}",
        "impl": "--impl must be mine, solutions or a folder; {impl!r} is none",
        "accept_less": "--sandbox-accept-less goes with --sandbox",
        "format_and_check": "--format writes a grade for a course tool, and --check grades only "
        "part of a drill: leave out --check to export (--json marks a partial result)",
        "same_path": "{first} and {second} would both be written to {path}; nothing was graded.",
        "unwritable": "cannot write the {format} result: {problem}; nothing was graded.",
        "broken": "the environment is broken: {error}. Run `make grade`, which sets up .venv, "
        "or install the packages in pyproject.toml.",
        "memory": "this machine gives the grader {limit} MB of memory (its cgroup's limit), and "
        "grading a drill needs about {needed} MB with this torch: each drill's judge, runner "
        "and kernel executor import torch. Give it {needed} MB or more: on Gradescope, the "
        "hardware setting on its Configure Autograder page; in a container, docker run "
        "--memory={needed}m{smaller}; nothing was graded.",
        "smaller_torch": "; or install the CPU-only torch, which needs a third of that (make "
        "TORCH=cpu)",
        "one_drill": "--check needs one drill: make grade DRILL=t3 CHECK=k_tail",
        "cache": "triton's cache folder {cache} cannot be written ({error}), and the judge "
        "compiles kernels into it: set TRITON_CACHE_DIR to a folder this user can write; "
        "nothing was graded.",
        "sandbox_refused": "--sandbox refused: {reason}",
        "sandbox_without": "--sandbox without: {note}",
        "interrupted": "grading interrupted ({signal}); nothing was written.",
        "not_written": "{problem}",
    },
    "zh": {
        "unknown_format": "没有 {format!r} 这种格式；可用的格式有 {formats}",
        "impl": "--impl 只能是 mine、solutions 或一个文件夹；{impl!r} 都不是",
        "accept_less": "--sandbox-accept-less 要和 --sandbox 一起用",
        "format_and_check": "--format 给课程平台写的是成绩，而 --check 只评一个练习的一部分："
        "导出时去掉 --check（--json 会标明结果只是一部分）",
        "same_path": "{first} 和 {second} 会写进同一个文件 {path}；什么都没有评。",
        "unwritable": "写不了 {format} 结果：{problem}；什么都没有评。",
        "broken": "环境坏了：{error}。运行 `make grade`（它会建好 .venv），或者安装 "
        "pyproject.toml 里列出的包。",
        "memory": "这台机器只给评分程序 {limit} MB 内存（它所在 cgroup 的上限），而用这个 torch "
        "评一个练习大约要 {needed} MB：每个练习的 judge、runner 和 kernel executor 都要 "
        "import torch。请给它 {needed} MB 或更多：在 Gradescope 上，改 Configure Autograder "
        "页面上的硬件设置；在容器里，docker run --memory={needed}m{smaller}；什么都没有评。",
        "smaller_torch": "；或者安装只用 CPU 的 torch，它只要三分之一（make TORCH=cpu）",
        "one_drill": "--check 只能用于一个练习：make grade DRILL=t3 CHECK=k_tail",
        "cache": "triton 的缓存文件夹 {cache} 写不进去（{error}），而 judge 要把 kernel 编译"
        "到里面：把 TRITON_CACHE_DIR 设成这个用户能写的文件夹；什么都没有评。",
        "sandbox_refused": "--sandbox 拒绝运行：{reason}",
        "sandbox_without": "--sandbox 缺少这一项：{note}",
        "interrupted": "评分被中断（{signal}）；什么都没有写。",
        "not_written": "结果文件没有写成：{problem}",
    },
}


def _start_loading_the_judge(args, selected) -> bool:
    """Start the judge's image (torch and triton) loading now, while the grader checks the rest,
    if any selected file will be run: a stub or a syntax error is answered without it. Not
    under --sandbox, which confines the grader first and every process it starts after.
    Whether this grade imports them: a file will be run, and no server that `make watch` kept
    warm holds them already."""
    from drills import grading

    judged = any(grading.needs_a_judge(d, args.impl) for d in selected)
    imports = judged and not forks.server_pids()
    if judged and not args.sandbox:
        forks.start_loading()
    return imports


def kept_warm(args) -> tuple[int, ...]:
    """The processes a grade leaves running: under `make watch`, which grades in its own
    process, the fork server it keeps warm for the next grade (torch and triton imported,
    nothing of any grade); otherwise none."""
    return forks.server_pids() if args.watching else ()


def _export_requests(args) -> list[tuple[str, Path]]:
    """(format, path) for each result file asked for: --json, then each --format."""
    requests = [("native", args.json)] if args.json else []
    return requests + [(fmt, Path(path)) for fmt, path in args.format]


def _output_problem(requests: list[tuple[str, Path]], words: dict) -> str:
    """Why a result file asked for could not be written, in `words`' language, or ''."""
    seen = {}
    for fmt, path in requests:
        where = path.resolve()
        if where in seen:
            return words["same_path"].format(first=seen[where], second=fmt, path=path)
        seen[where] = fmt
        problem = exports.unwritable(path)
        if problem:
            return words["unwritable"].format(format=fmt, problem=problem)
    return ""


def _chosen_checks(text: str | None, selected: list) -> list[str] | None:
    """The ids of the checks `--check TEXT` chooses in the one drill selected; None (every
    check) without it."""
    from drills import grading

    if text is None:
        return None
    return grading.select_checks(selected[0], text)


def _grade(args, selected, requests, rt, versions, confinement, only_checks) -> int:
    from drills import grading, integrity, processes, report, state

    impl = args.impl if args.impl in ("mine", "solutions") else str(Path(args.impl).resolve())
    # one seed for every judge of this grade, drawn now: no learner file can know it, and
    # DRILLS_SEED=N repeats a grade's inputs (each grade of a watch draws its own)
    os.environ["DRILLS_SEED"] = ASKED_SEED or str(int.from_bytes(os.urandom(6), "little"))
    title = report.heading(args.impl, rt.description, versions)
    title += f" · inputs from seed {os.environ['DRILLS_SEED']}"
    if confinement:
        title += f" · {confinement.summary()}"
    if rt.is_gpu:
        # no canary sees a read whose value a mask throws away: only a fault shows it
        title += (
            "\nOn a GPU, loads whose values a mask throws away are seen only past an input's "
            "end, in the checks that place inputs at the end of mapped memory; the CPU "
            "interpreter sees every one (TRITON_INTERPRET=1 make grade)."
        )
    print(title, flush=True)
    workers = _drills_at_once(rt)
    slowdown = _slowdown(workers)
    limit = args.time_limit or grading.DRILL_LIMIT[rt.kind] * slowdown
    sandbox = confinement.runner_settings(limit) if confinement else None
    started = time.monotonic()
    with processes.scratch_folder("grade-sources-") as folder:
        # The learner's files and the judge's, as they are before any learner code runs.
        guard = integrity.Guard()
        copies = {}
        for drill in selected:
            (Path(folder) / drill.id).mkdir()
            source = grading.source_file(impl, drill.slug)
            copies[drill.id] = grading.private_copy(source, Path(folder) / drill.id)

        def grade(drill):
            return grading.grade_or_report(
                drill,
                impl,
                rt.kind,
                limit,
                case_limit=grading.CASE_LIMIT[rt.kind] * slowdown,
                copy=copies[drill.id],
                guard=guard,
                sandbox=sandbox,
                only_checks=only_checks,
            )

        with ThreadPoolExecutor(max_workers=workers) as pool:
            # the largest drill first (the drills grow along the course): the others share
            # the remaining workers meanwhile, rather than it running alone at the end
            graded = {drill.id: pool.submit(grade, drill) for drill in reversed(selected)}
            results = [graded[drill.id].result() for drill in selected]
    processes.kill_descendants(spare=kept_warm(args))
    native = report.native_document(
        results, args.impl, rt.kind, versions, time.monotonic() - started
    )
    if only_checks is not None:  # the scores cover these checks only, named as the JSON names them
        native["only_checks"] = [selected[0].spec.check(id).name for id in only_checks]
    if confinement:
        native["sandbox"] = {"user": confinement.user is not None, "notes": confinement.notes}
    unwritten = exports.write(requests, results, native)
    if args.impl == "mine" and only_checks is None:  # some checks are not the drill's grade
        state.record_grades(results)
    report.show(
        results,
        args.impl,
        verbose=args.verbose,
        check_text=args.check or "",
        watching=args.watching,
        language=chinese.language(),
    )
    words = REFUSED_WORDS[chinese.language()]
    for problem in unwritten:  # the paths were checked before grading; a disk can fill up since
        print(f"grader.py: {words['not_written'].format(problem=problem)}", file=sys.stderr)
    if unwritten:
        return 2
    return 0 if all(r.status == Status.PASSED for r in results) else 1


def _drills_at_once(rt) -> int:
    """On the interpreter a case keeps one core busy, and a drill's processes need about
    MEMORY_PER_DRILL: as many drills at once (at most two) as the CPUs and memory this machine
    gives the grader allow (its cgroup's, not the host's). On a GPU a drill mostly waits on
    triton's compiler, one core, so every drill at once where the cores and memory allow: each
    drill's judge and runner hold a CUDA context (about half a GB), its cases need megabytes,
    and the few that need gigabytes run while no other case does (testing.big_gpu_memory). A
    GPU under 8 GB
    grades one drill at a time."""
    cores = max(1, int(resources.cpus()))
    if not rt.is_gpu:
        return max(1, min(2, cores, resources.memory_bytes() // memory_per_drill()))
    roomy = rt.gpu.memory >= 8 << 30
    return min(len(catalog.DRILLS), cores) if roomy else 1


def _slowdown(workers: int) -> float:
    """How much longer than on a CPU of its own each drill may take: the limits assume one
    core per drill, and half a CPU (Gradescope's default) takes about twice as long."""
    return max(1.0, workers / resources.cpus())


def memory_per_drill() -> int:
    """MEMORY_PER_DRILL for the torch installed: a CPU-only build (PyTorch's CPU index marks its
    versions, 2.13.0+cpu) or PyPI's, with CUDA's libraries."""
    from drills import runtime

    return MEMORY_PER_DRILL["cpu" if runtime.versions()["torch"].endswith("+cpu") else "cuda"]


def _too_little_memory(rt) -> int | None:
    """The memory this machine gives the grader, in bytes, where that is too little to grade a
    drill on the interpreter without processes being killed for it; None when it is enough."""
    limit = resources.memory_limit()
    if rt.is_gpu or limit is None or limit >= memory_per_drill():
        return None
    return limit


def _exit_cleanly_on_signals(confinement, words: dict) -> None:
    """Ctrl-C or a SIGTERM: kill every process grading started, say so in one line, exit."""
    from drills import processes

    def stop(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        # no grading thread starts a judge after this; each judge is asked first, and removes
        # its runners' folders, which hold copies of the learner's file
        processes.stop_all(grace=2.0)
        if confinement:
            confinement.release()
        name = signal.Signals(signum).name
        print(f"\ngrader.py: {words['interrupted'].format(signal=name)}", file=sys.stderr)
        # again: a grading thread may have started a process since the first sweep
        processes.kill_descendants()
        processes.remove_scratch()
        os._exit(128 + signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
