"""The learner's tools: `python -m drills.tools hint|watch|reset|compare|doctor [DRILL]`.

Each is also a make target (make hint DRILL=t2, ...). Nothing here ever deletes what a learner
wrote: reset keeps a timestamped copy first, and says where.
"""

import argparse
import datetime
import difflib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from drills import catalog, chinese, state
from drills.failures import Status

BACKUPS = catalog.ROOT / "mine" / ".backup"


# ---------------------------------------------------------------------------------------------
# hint
# ---------------------------------------------------------------------------------------------


# What `make hint` says around the hints, per language.
HINT_WORDS = {
    "en": {
        "heading": "{drill}: hint {shown} of {total}",
        "hint": "Hint {number}",
        "next": "`make hint DRILL={id}` again for the next one, which gets closer to the code.",
        "last": "That was the last hint. The lesson is {lesson}.",
    },
    "zh": {
        "heading": "{drill}：提示 {shown}/{total}",
        "hint": "提示 {number}",
        "next": "再运行一次 `make hint DRILL={id}` 看下一条，它更接近代码。",
        "last": "这是最后一条提示。课文是 {lesson}。",
    },
}


def hints_of(drill: catalog.Drill, language: str = "en") -> list[str]:
    """The '### Hint N' sections of the drill's hints page in `language`, in order."""
    text = drill.in_language(drill.hints, language).read_text()
    return [h.strip() for h in re.split(r"^### Hint \d+\n", text, flags=re.MULTILINE)[1:]]


def hint(drill: catalog.Drill) -> int:
    chosen = chinese.language()
    if drill.in_language(drill.hints, chosen) == drill.hints:
        chosen = "en"  # this drill's hints have no edition in that language yet
    words = HINT_WORDS[chosen]
    hints = hints_of(drill, chosen)
    shown = min(state.hints_shown(drill) + 1, len(hints))
    state.set_hints_shown(drill, shown)
    title = f"{drill.id} · {drill.title}"
    print(words["heading"].format(drill=title, shown=shown, total=len(hints)) + "\n")
    for number, text in enumerate(hints[:shown], start=1):
        print(words["hint"].format(number=number) + f"\n{text}\n")
    if shown < len(hints):
        print(words["next"].format(id=drill.id))
    else:
        lesson = drill.in_language(drill.lesson, chosen).relative_to(catalog.ROOT)
        print(words["last"].format(lesson=lesson))
    return 0


# ---------------------------------------------------------------------------------------------
# reset
# ---------------------------------------------------------------------------------------------


def backup(path: Path) -> Path:
    """Copy a learner's file to mine/.backup/NAME.TIMESTAMP.py; return the copy's path."""
    BACKUPS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    copy = BACKUPS / f"{path.stem}.{stamp}.py"
    shutil.copy2(path, copy)
    return copy


# What `make reset` says, per language.
RESET_WORDS = {
    "en": {
        "saved": "Your {shown} is saved as {copy}. To bring it back: cp {copy} {shown}",
        "stub": "{shown} is the untouched stub again.",
    },
    "zh": {
        "saved": "你的 {shown} 已备份为 {copy}。要恢复它：cp {copy} {shown}",
        "stub": "{shown} 又是未改动的练习模板了。",
    },
}


def reset(drill: catalog.Drill) -> int:
    """Back up mine/'s file, then put the stub back. The hints already shown stay shown."""
    words = RESET_WORDS[chinese.language()]
    target = drill.source("mine")
    shown = target.relative_to(catalog.ROOT)
    if target.exists():
        copy = backup(target).relative_to(catalog.ROOT)
        print(words["saved"].format(shown=shown, copy=copy))
    shutil.copyfile(drill.stub, target)
    print(words["stub"].format(shown=shown))
    return 0


# ---------------------------------------------------------------------------------------------
# compare
# ---------------------------------------------------------------------------------------------


# What `make compare` says, per language.
COMPARE_WORDS = {
    "en": {
        "not_passed": "{id} has not passed yet (as last graded), and the reference solution "
        "gives the drill away.",
        "anyway": "To see it anyway: make compare DRILL={id} YES=1",
        "ask": "Show it anyway? [y/N] ",
        "same": "{mine} is the same as the reference.",
        "not_shipped": "make compare shows your file beside the reference solution, and this "
        "copy has none: {reference} is not here (a course copy leaves solutions/ out). Your "
        "instructor says when the references are shared.",
    },
    "zh": {
        "not_passed": "{id} 还没有通过（以上次评分为准），参考答案会把这道练习的解法直接告诉你。",
        "anyway": "仍然要看：make compare DRILL={id} YES=1",
        "ask": "仍然显示吗？[y/N] ",
        "same": "{mine} 与参考答案完全相同。",
        "not_shipped": "make compare 把你的文件和参考答案并排比较，而这份副本里没有参考答案："
        "没有 {reference}（课程用的副本不带 solutions/）。参考答案什么时候公开，由你的老师决定。",
    },
}


def compare(drill: catalog.Drill, assume_yes: bool) -> int:
    words = COMPARE_WORDS[chinese.language()]
    mine, reference = drill.source("mine"), drill.source("solutions")
    if not reference.is_file():
        shown = reference.relative_to(catalog.ROOT)
        print(words["not_shipped"].format(reference=shown), file=sys.stderr)
        return 2
    if not assume_yes and state.last_status(drill) != Status.PASSED:
        # on stderr: under `make compare | less` the question must still be seen
        print(words["not_passed"].format(id=drill.id), file=sys.stderr)
        if not sys.stdin.isatty():
            print(words["anyway"].format(id=drill.id), file=sys.stderr)
            return 1
        print(words["ask"], end="", file=sys.stderr, flush=True)
        if input().strip().lower() not in ("y", "yes"):
            return 1
    lines = list(
        difflib.unified_diff(
            mine.read_text().splitlines(keepends=True) if mine.exists() else [],
            reference.read_text().splitlines(keepends=True),
            fromfile=str(mine.relative_to(catalog.ROOT)),
            tofile=str(reference.relative_to(catalog.ROOT)),
        )
    )
    if not lines:
        print(words["same"].format(mine=mine.relative_to(catalog.ROOT)))
    sys.stdout.writelines(lines)
    return 0


# ---------------------------------------------------------------------------------------------
# watch
# ---------------------------------------------------------------------------------------------


# What `make watch` says between grades, per language.
WATCH_WORDS = {
    "en": {
        "checking": "Checking {drill} ({path}) at {time}...",
        "graded": "Graded in {seconds:.1f} s. Watching {path}: each save grades it, Ctrl-C stops.",
        "stopped": "Stopped watching.",
    },
    "zh": {
        "checking": "{time} 检查 {drill}（{path}）……",
        "graded": "评分用时 {seconds:.1f} 秒。正在盯着 {path}：每次保存都重新评分，Ctrl-C 停止。",
        "stopped": "已停止。",
    },
}


def watch(drill: catalog.Drill, stay: bool = False, interval: float = 0.5) -> int:
    """Re-grade the drill whenever its file changes; once it passes, watch the next drill's
    file instead, as the grade's Next line says, unless asked to `stay` on this drill (a drill
    named on the command line: its lesson goes on past a first pass). Polls, so it works on
    WSL and network file systems where change notifications do not arrive.

    Each grade is the grader's own (drills.cli), run in this process, so that what it keeps
    between grades stays warm: its fork server, which holds torch and triton imported and
    nothing of any grade (drills/judge/forks.py), started here on the main thread so that it
    lives as long as the watch. Every judge, runner and executor is a fresh fork of it."""
    from drills.judge import forks

    path = drill.source("mine")
    seen = None
    words = WATCH_WORDS[chinese.language()]
    forks.namespaces()  # starts the server now, on this thread
    try:
        while True:
            now = state.fingerprint(path)
            if now != seen:
                seen = now
                started = time.monotonic()
                passed = _grade_watched(drill, stay, words)
                if passed and not stay and drill is not catalog.DRILLS[-1]:
                    drill = catalog.DRILLS[catalog.DRILLS.index(drill) + 1]
                    path = drill.source("mine")
                    seen = state.fingerprint(path)  # graded at its first save, not at once
                seconds, shown = time.monotonic() - started, path.relative_to(catalog.ROOT)
                print("\n" + words["graded"].format(seconds=seconds, path=shown), flush=True)
            time.sleep(interval)
    except KeyboardInterrupt:
        print("\n" + words["stopped"])
        return 0


def _grade_watched(drill: catalog.Drill, stay: bool, words: dict) -> bool:
    """Grade the drill in mine/ on a clear screen; whether it passed."""
    if sys.stdout.isatty():
        print("\033[2J\033[H", end="")
    path = drill.source("mine").relative_to(catalog.ROOT)
    now = f"{datetime.datetime.now():%H:%M:%S}"
    print(words["checking"].format(drill=f"{drill.id} · {drill.title}", path=path, time=now))
    from drills import cli

    try:
        # Ctrl-C while a grade runs stops the grade and the watch (the grader's own handler)
        return cli.main([drill.id, "--watching=" + ("drill" if stay else "course")]) == 0
    finally:
        # Ctrl-C between grades is how a watch stops, even where this process started with
        # SIGINT ignored (as a command started in the background of a script does)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# ---------------------------------------------------------------------------------------------
# doctor
# ---------------------------------------------------------------------------------------------


def _version(name: str) -> tuple[str, tuple[int, ...]]:
    import importlib.metadata

    try:
        text = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed", ()
    numbers = tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:2])
    return text, numbers


# What `make doctor` says, per language (the versions' line is drills.versions.unsupported's).
DOCTOR_WORDS = {
    "en": {
        "interpreter": "kernels run as Python on the CPU; benchmarks and GPU-only cases need a GPU",
        "problem": "problem",
        "numpy": "numpy {numpy} with triton {triton}: numpy 2.4 broke every loop with a runtime "
        "bound in triton's CPU interpreter up to 3.6 (fixed in 3.7), so t3's K loop fails there. "
        "On the CPU: .venv/bin/pip install 'numpy<2.4'. Grading on a GPU is not affected.",
        "grading": "Grading the reference solutions here, to check the environment itself "
        "(under a minute on 2 idle cores, longer on a busy machine)...",
        "still": "  still running ({seconds:.0f} s)",
        "broken": "The reference solutions do not all pass here, so the problem is the "
        "environment, not your code. Fix the problems above, or rebuild it with `make clean` "
        "then `make grade`. The grader's output:",
        "fine": "The environment is fine: the reference solutions pass. `make grade` grades yours.",
        "no_references": "This copy has no reference solutions (a course copy leaves solutions/ "
        "out), so the doctor checks the environment with a small kernel of its own instead...",
        "kernel_broken": "A small kernel of the doctor's own fails here, so the problem is the "
        "environment, not your code. Fix the problems above, or rebuild it with `make clean` "
        "then `make grade`. Its output:",
        "kernel_fine": "The environment is fine: triton ran a kernel here. `make grade` grades "
        "yours.",
    },
    "zh": {
        "interpreter": "kernel 在 CPU 上以 Python 运行；基准测试和只在 GPU 上跑的用例需要 GPU",
        "problem": "问题",
        "numpy": "numpy {numpy} 搭配 triton {triton}：numpy 2.4 让 triton 3.6 及更早版本的 CPU "
        "解释器里所有上界在运行时才确定的循环都出错（3.7 已修复），所以 t3 的 K 循环在这里会失败。"
        "在 CPU 上：.venv/bin/pip install 'numpy<2.4'。在 GPU 上评分不受影响。",
        "grading": "正在这里给参考答案评分，用来检查环境本身（空闲的 2 核机器上不到一分钟，"
        "机器忙时更久）……",
        "still": "  仍在运行（{seconds:.0f} 秒）",
        "broken": "参考答案在这里没有全部通过，所以问题出在环境，不在你的代码。修好上面列出的问题，"
        "或者先 `make clean` 再 `make grade` 重建环境。评分器的输出：",
        "fine": "环境没有问题：参考答案都通过了。`make grade` 给你的代码评分。",
        "no_references": "这份副本里没有参考答案（课程用的副本不带 solutions/），所以改用一个"
        "自带的小 kernel 检查环境……",
        "kernel_broken": "自带的小 kernel 在这里运行失败，所以问题出在环境，不在你的代码。修好上面"
        "列出的问题，或者先 `make clean` 再 `make grade` 重建环境。它的输出：",
        "kernel_fine": "环境没有问题：triton 在这里运行了一个 kernel。`make grade` 给你的代码评分。",
    },
}


def known_problems(versions: dict[str, tuple[str, tuple[int, ...]]], on_gpu: bool) -> list[str]:
    """Combinations known to break the drills where they run (GPU or interpreter), each with
    what to do, in the chosen language."""
    problems = []
    triton, numpy = versions["triton"][1], versions["numpy"][1]
    if not on_gpu and triton and numpy and triton < (3, 7) and numpy >= (2, 4):
        words = DOCTOR_WORDS[chinese.language()]
        problems.append(
            words["numpy"].format(numpy=versions["numpy"][0], triton=versions["triton"][0])
        )
    return problems


def run_showing_progress(command: list[str], every: float = 15.0) -> subprocess.CompletedProcess:
    """Run `command` in the checkout, its output captured, saying every `every` seconds that it
    is still running: a wait of a minute with nothing on the screen looks like a hang."""
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        grader = subprocess.Popen(
            command,
            cwd=catalog.ROOT,
            stdout=out,
            stderr=err,
            text=True,
            env=dict(os.environ, NO_COLOR="1"),
        )
        while True:
            try:
                grader.wait(timeout=every)
                break
            except subprocess.TimeoutExpired:
                still = DOCTOR_WORDS[chinese.language()]["still"]
                print(still.format(seconds=time.monotonic() - started), flush=True)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(grader.args, grader.returncode, out.read(), err.read())


def doctor() -> int:
    versions = {name: _version(name) for name in ("torch", "triton", "numpy", "pytest")}
    print(f"Python   {sys.version.split()[0]} ({sys.executable})")
    for name, (text, _) in versions.items():
        print(f"{name:<8} {text}")
    from drills import runtime
    from drills.versions import unsupported

    words = DOCTOR_WORDS[chinese.language()]
    rt = runtime.current()
    if rt.is_gpu:
        print(f"runtime  {rt.description}")
    else:
        print(f"runtime  {rt.description}: {words['interpreter']}")
    problems = known_problems(versions, on_gpu=rt.is_gpu)
    outside = unsupported({name: text for name, (text, _) in versions.items()}, chinese.language())
    # the grader refuses versions outside the range before it grades anything
    for problem in filter(None, [*problems, outside]):
        print(f"\n{words['problem']}: {problem}")
    if outside:
        return 1
    shipped = [d.id for d in catalog.DRILLS if d.source("solutions").is_file()]
    if not shipped:
        return _check_with_a_kernel_of_its_own(words, problems)
    print("\n" + words["grading"], flush=True)
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "result.json"
        # the references this copy has: a course copy may ship some
        command = [sys.executable, "grader.py", *shipped, "--impl", "solutions"]
        command += ["--json", str(result)]
        done = run_showing_progress(command)
        graded = json.loads(result.read_text())["drills"] if result.exists() else []
    for d in graded:  # the grade as data: a line a drill
        points = f"{d['score']:g}/{d['max_score']:g}"
        print(f"{d['id']:<4} {d['title']:<18} {d['status']:<8} {points:>7}  {d['seconds']:.1f}s")
    if done.returncode != 0:
        print(f"\n{words['broken']}\n" + done.stdout[-3000:] + done.stderr[-2000:])
        return 1
    if problems:
        return 1
    print("\n" + words["fine"])
    return 0


def _check_with_a_kernel_of_its_own(words: dict, problems: list[str]) -> int:
    """The doctor's check where no reference is shipped: drills.kernel_check, a kernel that is
    no drill's, run by triton on this machine's runtime."""
    print("\n" + words["no_references"], flush=True)
    done = run_showing_progress([sys.executable, "-m", "drills.kernel_check"])
    if done.returncode != 0:
        print(f"\n{words['kernel_broken']}\n" + done.stdout[-3000:] + done.stderr[-2000:])
        return 1
    print(done.stdout.strip())
    if problems:
        return 1
    print("\n" + words["kernel_fine"])
    return 0


# ---------------------------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------------------------


# What `make progress` says, per language.
PROGRESS_WORDS = {
    "en": {
        "never": "not graded yet",
        "changed": "  (mine/{slug}.py changed since)",
        "done": "Next: every drill passes. Compare yours with the references: make compare DRILL=t1",
        "next": "Next: {drill}: {lesson}, then make grade DRILL={id}",
        "status": {},
        "ago": ("{n} {unit}{s} ago", "just now", ("day", "hour", "minute")),
    },
    "zh": {
        "never": "还没评过分",
        "changed": "  （之后改过 mine/{slug}.py）",
        "done": "下一步：所有练习都通过了。和参考答案对照：make compare DRILL=t1",
        "next": "下一步：{drill}：读 {lesson}，然后 make grade DRILL={id}",
        "status": {
            "passed": "通过",
            "failed": "未通过",
            "not_started": "还没开始",
            "error": "无法导入",
            "crashed": "崩溃",
            "timeout": "超时",
        },
        "ago": ("{n} {unit}前", "刚刚", ("天", "小时", "分钟")),
    },
}


def progress() -> int:
    """Every drill's last grade of mine/, from .drills/state.json, without grading again."""
    language = chinese.language()
    words = PROGRESS_WORDS[language]
    now = time.time()
    for drill in catalog.DRILLS:
        grade = state.last_grade(drill)
        if grade is None:
            line = words["never"]
        else:
            ago = _ago(now - grade["graded_at"], words["ago"])
            status = words["status"].get(grade["status"], grade["status"])
            line = f"{status:<12} {grade['score']:.0f}/{grade['max_score']:.0f}  {ago}"
            if not grade["current"]:
                line += words["changed"].format(slug=drill.slug)
        print(f"{drill.id}  {drill.title:<17} {line}")
    drill = state.first_unfinished()
    lesson = drill.in_language(drill.lesson, language).relative_to(catalog.ROOT)
    if state.last_status(drill) == Status.PASSED:
        print("\n" + words["done"])
    else:
        named = f"{drill.id} · {drill.title}"
        print("\n" + words["next"].format(drill=named, lesson=lesson, id=drill.id))
    return 0


def _ago(seconds: float, words: tuple) -> str:
    """How long ago, in `words` (a PROGRESS_WORDS "ago": the phrase, now, the units)."""
    phrase, just_now, units = words
    for unit, size in zip(units, (86400, 3600, 60), strict=True):
        if seconds >= size:
            n = int(seconds // size)
            return phrase.format(n=n, unit=unit, s="s" if n > 1 else "")  # zh has no plural
    return just_now


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m drills.tools")
    parser.add_argument("tool", choices=("hint", "watch", "reset", "compare", "doctor", "progress"))
    parser.add_argument(
        "drill", nargs="?", help="drill id or name; default: the first unfinished one (hint, watch)"
    )
    parser.add_argument("--yes", action="store_true", help="compare: do not ask first")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    chinese.keep_choice()
    if args.tool == "doctor":
        return doctor()
    if args.tool == "progress":
        return progress()
    if args.drill is None and args.tool in ("reset", "compare"):
        print(f"make {args.tool} needs a drill: make {args.tool} DRILL=t1", file=sys.stderr)
        return 2
    try:
        drill = catalog.find(args.drill) if args.drill else state.first_unfinished()
    except catalog.NotFound as e:
        print(e.said(chinese.language()), file=sys.stderr)
        return 2
    if args.tool == "hint":
        return hint(drill)
    if args.tool == "watch":
        return watch(drill, stay=args.drill is not None)
    if args.tool == "reset":
        return reset(drill)
    return compare(drill, args.yes)


if __name__ == "__main__":
    sys.exit(main())
