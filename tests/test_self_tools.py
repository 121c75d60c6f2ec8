"""The repo's own tests of the learner's tools, each run as a learner would, in a copy of the
repository (so nothing here touches the real mine/). The course exports: test_self_exports.py."""

import json
import os
import shutil
import signal
import string
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drills import catalog, chinese, state, tools, versions

ROOT = catalog.ROOT


@pytest.fixture
def clone(tmp_path) -> Path:
    """A copy of the repository as a learner would have it, stubs untouched in mine/."""
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("drills", "content", "solutions", "tests", "grader.py", "pyproject.toml"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    (copy / "mine").mkdir()
    for drill in catalog.DRILLS:
        shutil.copy2(drill.stub, copy / "mine" / drill.stub.name)
    return copy


def tool(
    repo: Path, *args: str, stdin: str = "", lang: str = "C.UTF-8"
) -> subprocess.CompletedProcess:
    # the learner's locale picks the hints' language: these tests choose it
    locale = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}
    return subprocess.run(
        [sys.executable, "-m", "drills.tools", *args],
        cwd=repo,
        env=locale | {"LANG": lang},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_tests_keep_a_state_file_of_their_own_for_this_checkout(clone):
    """What a developer kept in this checkout (make grade LANG=zh) never reaches these tests,
    which never change it; a copy of the checkout that a test makes keeps its own state."""
    said = "from drills import state; print(state.STATE)"

    def state_file(checkout: Path) -> Path:
        done = subprocess.run(
            [sys.executable, "-c", said], cwd=checkout, capture_output=True, text=True, check=True
        )
        return Path(done.stdout.strip())

    assert state_file(ROOT) == state.STATE != ROOT / ".drills" / "state.json"
    assert state_file(clone) == clone.resolve() / ".drills" / "state.json"


def test_hints_come_one_level_at_a_time_and_are_remembered(clone):
    first = tool(clone, "hint")  # no drill: the first unfinished one, t1
    assert first.returncode == 0 and "t1 · Vector add: hint 1 of 3" in first.stdout
    assert "Hint 2" not in first.stdout
    second = tool(clone, "hint", "t1")
    assert "hint 2 of 3" in second.stdout and "Hint 1" in second.stdout
    assert "Hint 3" not in second.stdout
    assert "hint 1 of 3" in tool(clone, "hint", "t2").stdout  # each drill keeps its own count


def test_hints_are_in_chinese_when_the_locale_asks_and_the_drill_has_them(clone):
    first = tool(clone, "hint", "t1", lang="zh_CN.UTF-8")
    assert "t1 · Vector add：提示 1/3" in first.stdout and "提示 1" in first.stdout
    assert "Program" in first.stdout and "Write the kernel" not in first.stdout
    assert "make hint DRILL=t1" in first.stdout
    # a drill whose hints have no Chinese edition keeps to English
    (clone / "content" / "zh" / "hints" / "t4_matmul.md").unlink()
    assert "hint 1 of 3" in tool(clone, "hint", "t4", lang="zh_CN.UTF-8").stdout


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_every_lesson_has_three_hints(drill):
    assert len(tools.hints_of(drill)) == 3
    assert len(tools.hints_of(drill, "zh")) == 3


def test_reset_backs_up_the_learners_file_then_restores_the_stub(clone):
    mine = clone / "mine" / "t2_softmax.py"
    mine.write_text("# my work in progress\n")
    done = tool(clone, "reset", "t2")
    assert done.returncode == 0
    assert mine.read_text() == (ROOT / "drills" / "stubs" / "t2_softmax.py").read_text()
    (backup,) = (clone / "mine" / ".backup").glob("t2_softmax.*.py")
    assert backup.read_text() == "# my work in progress\n"
    assert f"cp {backup.relative_to(clone)} mine/t2_softmax.py" in done.stdout  # how to undo
    tool(clone, "reset", "t2")  # a second reset keeps the first backup too
    assert len(list((clone / "mine" / ".backup").glob("t2_softmax.*.py"))) == 2


def test_reset_keeps_the_hints_already_shown(clone):
    tool(clone, "hint", "t2")
    tool(clone, "reset", "t2")
    assert "hint 2 of 3" in tool(clone, "hint", "t2").stdout


@pytest.mark.slow
def test_progress_shows_every_drill_and_what_is_next_without_grading(clone):
    before = tool(clone, "progress")
    assert before.returncode == 0
    assert all(f"{d.id}  {d.title}" in before.stdout for d in catalog.DRILLS)
    assert "not graded yet" in before.stdout and "Next: t1" in before.stdout
    mine = clone / "mine" / "t1_add.py"
    mine.write_text((ROOT / "solutions" / "t1_add.py").read_text())
    subprocess.run(
        [sys.executable, "grader.py", "t1"],
        cwd=clone,
        capture_output=True,
        timeout=300,
        check=False,
    )
    after = tool(clone, "progress").stdout
    assert "passed       100/100  just now" in after and "Next: t2" in after
    # an edit that keeps the modification time (cp -p, rsync -t) is an edit too
    graded = mine.stat()
    mine.write_text(mine.read_text() + "# edited\n")
    os.utime(mine, ns=(graded.st_atime_ns, graded.st_mtime_ns))
    assert "(mine/t1_add.py changed since)" in tool(clone, "progress").stdout


def test_reset_needs_a_drill(clone):
    done = tool(clone, "reset")
    assert done.returncode == 2 and "make reset DRILL=" in done.stderr


def test_compare_asks_before_spoiling_an_unfinished_drill(clone):
    refused = tool(clone, "compare", "t1")  # stdin is not a terminal: no prompt, no spoiler
    assert refused.returncode == 1 and "YES=1" in refused.stderr
    assert "+++ solutions/t1_add.py" not in refused.stdout
    shown = tool(clone, "compare", "t1", "--yes")
    assert shown.returncode == 0 and "+++ solutions/t1_add.py" in shown.stdout


@pytest.mark.slow
def test_compare_shows_a_passed_drill_without_asking(clone):
    mine = clone / "mine" / "t1_add.py"
    mine.write_text((ROOT / "solutions" / "t1_add.py").read_text() + "# my comment\n")
    graded = subprocess.run(
        [sys.executable, "grader.py", "t1"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert graded.returncode == 0, graded.stdout
    done = tool(clone, "compare", "t1")
    assert done.returncode == 0 and "+++ solutions/t1_add.py" in done.stdout
    assert "-# my comment" in done.stdout


IGNORE_SIGINT_THEN_EXEC = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def watched(monkeypatch, stay: bool) -> list[tuple[str, bool]]:
    """The drills a watch of t2 grades, each with what it was told, when every poll sees a
    save and every grade passes: two grades, then Ctrl-C."""
    from drills.judge import forks

    graded = []

    def grade(drill, stays, words):
        graded.append((drill.id, stays))
        if len(graded) == 2:
            raise KeyboardInterrupt
        return True

    saves = iter(range(100))
    monkeypatch.setattr(tools, "_grade_watched", grade)
    monkeypatch.setattr(state, "fingerprint", lambda path: (path, next(saves)))
    monkeypatch.setattr(forks, "namespaces", lambda: False)
    assert tools.watch(catalog.find("t2"), stay=stay, interval=0) == 0
    return graded


def test_watch_of_a_named_drill_stays_on_it_after_a_pass(monkeypatch):
    assert watched(monkeypatch, stay=True) == [("t2", True), ("t2", True)]
    assert watched(monkeypatch, stay=False) == [("t2", False), ("t3", False)]


def test_the_next_line_of_a_watch_says_where_it_goes_after_a_pass():
    from drills import report
    from drills.grading import DrillResult

    passed = DrillResult("t2", "t2_softmax", "Row-wise softmax", "passed", 100, 100, 1.0, [])
    passed.source = "mine/t2_softmax.py"
    stays = report.next_step(None, "mine", [passed], watching="drill")
    assert "Watch stays on mine/t2_softmax.py" in stays and "make watch DRILL=t3" in stays
    moves = report.next_step(None, "mine", [passed], watching="course")
    assert "watch moves on to t3" in moves


@pytest.mark.slow
def test_watch_regrades_on_save_moves_on_after_a_pass_and_stops_on_ctrl_c(clone):
    watcher = subprocess.Popen(
        # started as a script's background job is: SIGINT ignored, which exec keeps; no drill
        # named, so it starts at the first unfinished one and follows the course
        [sys.executable, "-c", IGNORE_SIGINT_THEN_EXEC, "-m", "drills.tools", "watch"],
        cwd=clone,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    lines = []

    def wait_for(text: str, count: int) -> None:
        deadline = time.monotonic() + 120
        while sum(text in line for line in lines) < count and time.monotonic() < deadline:
            line = watcher.stdout.readline()
            if not line:  # the end of the output
                return
            lines.append(line)

    try:
        wait_for("Watching mine/t1_add.py", 1)
        assert any("not started" in line for line in lines)
        assert any("then save it: watch grades it again." in line for line in lines)
        shutil.copy2(ROOT / "solutions" / "t1_add.py", clone / "mine" / "t1_add.py")
        wait_for("Watching mine/t2_softmax.py", 1)  # t1 passes: on to t2, as Next says
        assert sum("Checking t1" in line for line in lines) == 2
        assert any("100/100" in line for line in lines)
        assert any("Next: watch moves on to t2" in line for line in lines), lines
        assert not any("Checking t2" in line for line in lines)  # graded at its first save
    finally:
        watcher.send_signal(signal.SIGINT)
        # the watcher's own end, not the end of its output, which any process that inherited
        # the pipe keeps open
        returncode = watcher.wait(timeout=60)
    wait_for("Stopped watching.", 1)
    assert returncode == 0 and "Stopped watching." in lines[-1], lines[-3:]


def test_known_bad_combinations_are_named():
    interpreter_breaks = {
        "triton": ("3.6.0", (3, 6)),
        "numpy": ("2.4.1", (2, 4)),
        "torch": ("2.11", (2, 11)),
        "pytest": ("9", (9,)),
    }
    problems = tools.known_problems(interpreter_breaks, on_gpu=False)
    assert len(problems) == 1 and "numpy<2.4" in problems[0]
    # on a GPU the interpreter does not run: the H200's triton 3.6 with numpy 2.5 grades fine
    assert tools.known_problems(interpreter_breaks, on_gpu=True) == []
    fine = tools.known_problems(
        {
            "triton": ("3.8.0", (3, 8)),
            "numpy": ("2.4.6", (2, 4)),
            "torch": ("2.14", (2, 14)),
            "pytest": ("9", (9,)),
        },
        on_gpu=False,
    )
    assert fine == []


def test_a_torch_or_triton_outside_the_tested_range_is_named_with_what_to_install():
    note = versions.unsupported({"torch": "2.15.0", "triton": "3.9.0"})
    assert note.startswith("torch 2.15.0 is outside the versions the drills are tested on")
    assert f"{sys.executable} -m pip install" in note
    for name, spec in versions.tested_ranges().items():
        assert f"'{name}{spec}'" in note
    assert versions.unsupported({"torch": "2.14.1+cu130", "triton": "3.6.0"}) == ""
    assert "triton 3.5.0 is" in versions.unsupported({"torch": "2.11", "triton": "3.5.0"})
    assert "torch not installed and triton 3.10.0 are" in versions.unsupported(
        {"torch": "not installed", "triton": "3.10.0"}
    )


def python_running(code: str, *args: str) -> subprocess.CompletedProcess:
    """`python -c code args` in the repository, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_the_grader_refuses_an_untested_triton_in_one_line_before_grading():
    # triton 3.5 once graded the T1 reference 0/100, blaming the code for the environment
    pretend = (
        "import sys; from drills import runtime, cli; "
        "runtime.versions = lambda: {'python': '3', 'torch': '2.14.1', 'triton': '3.5.0'}; "
        "sys.exit(cli.main(['t1', '--impl', 'solutions']))"
    )
    done = python_running(pretend)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert "triton 3.5.0 is outside the versions" in line and "pip install" in line


def test_packages_without_bytecode_are_found_and_compiled_by_the_command_named(
    tmp_path, monkeypatch
):
    # the GPU machines this repository is measured on install torch with
    # PYTHONDONTWRITEBYTECODE set: its import took 4.6-5.5 s there, 2.5-2.7 s once compiled
    package = tmp_path / "no_bytecode_here"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert versions.uncompiled(("no_bytecode_here", "not_installed_at_all")) == [package]
    note = versions.uncompiled_note([package])
    assert note.startswith("no_bytecode_here has no compiled bytecode")
    command = note.split("Compile it once: ")[1].split()
    subprocess.run(command, check=True, env=os.environ | {"PYTHONDONTWRITEBYTECODE": ""})
    assert versions.uncompiled(("no_bytecode_here",)) == []
    assert "编译一次就够了" in versions.uncompiled_note([package], "zh")


# a grader whose torch has no bytecode, whatever this machine's has
PRETEND_UNCOMPILED = (
    "import sys; from pathlib import Path; from drills import cli, versions; "
    "versions.uncompiled = lambda: [Path('/pretend/torch')]; "
)


def test_the_grader_names_packages_without_bytecode_when_it_runs_a_file(tmp_path):
    grade = PRETEND_UNCOMPILED + "sys.exit(cli.main(sys.argv[1:]))"
    stub = tmp_path / "stub"
    stub.mkdir()
    shutil.copy(ROOT / "drills" / "stubs" / "t1_add.py", stub / "t1_add.py")
    # a stub is answered without torch
    assert "bytecode" not in python_running(grade, "t1", "--impl", str(stub)).stderr
    said = python_running(grade, "t1", "--impl", "solutions").stderr
    assert "grader.py: torch has no compiled bytecode" in said
    assert "-m compileall -q /pretend/torch" in said


def test_make_watch_names_packages_without_bytecode_only_when_it_imports_them():
    # a watch keeps the imported torch warm between grades: only its first grade pays
    done = python_running(
        PRETEND_UNCOMPILED
        + "[cli.main(['t1', '--impl', 'solutions', '--watching=drill']) for _ in range(2)]"
    )
    assert done.stdout.count("Total 100/100") == 2, done.stdout + done.stderr
    assert done.stderr.count("no compiled bytecode") == 1, done.stderr


def test_the_grader_refuses_a_triton_cache_it_cannot_write_in_one_line_before_grading(tmp_path):
    """A home folder mounted read-only (a container run with --read-only) once failed every
    case of every drill as the grader's own failure: the judge compiles into triton's cache."""
    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("")
    env = os.environ | {"TRITON_CACHE_DIR": str(not_a_folder / "cache")}
    done = subprocess.run(
        [sys.executable, "grader.py", "t1", "--impl", "solutions"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert f"triton's cache folder {not_a_folder / 'cache'} cannot be written" in line
    assert "set TRITON_CACHE_DIR to a folder this user can write" in line


@pytest.mark.slow
def test_doctor_reports_versions_and_checks_the_references():
    done = subprocess.run(
        [sys.executable, "-m", "drills.tools", "doctor"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    for name in ("Python", "torch", "triton", "numpy", "runtime"):
        assert name in done.stdout
    assert all(f"{d.id} " in done.stdout for d in catalog.DRILLS)
    fine_or_a_known_problem(done, "The environment is fine: the reference solutions pass")


def fine_or_a_known_problem(done: subprocess.CompletedProcess, fine: str) -> None:
    """The doctor's verdict: `fine`, or else a known-bad combination, said as such."""
    if done.returncode == 0:
        assert fine in done.stdout, done.stdout
    else:
        assert "problem:" in done.stdout, done.stdout


def test_compare_in_a_course_copy_says_the_references_are_not_shipped(clone):
    shutil.rmtree(clone / "solutions")
    done = tool(clone, "compare", "t1", "--yes")
    assert done.returncode == 2 and done.stdout == "", done.stderr
    [line] = done.stderr.splitlines()
    assert "solutions/t1_add.py is not here (a course copy leaves solutions/ out)" in line
    zh = tool(clone, "compare", "t1", "--yes", lang="zh_CN.UTF-8")
    assert zh.returncode == 2 and "没有 solutions/t1_add.py" in zh.stderr


@pytest.mark.slow
def test_doctor_in_a_course_copy_checks_the_environment_with_a_kernel_of_its_own(clone):
    shutil.rmtree(clone / "solutions")
    done = tool(clone, "doctor")
    assert "a kernel of the doctor's own ran right on the" in done.stdout, done.stdout
    assert "make clean" not in done.stdout
    fine_or_a_known_problem(done, "The environment is fine: triton ran a kernel here")


def test_doctor_in_a_course_copy_blames_the_environment_when_its_kernel_fails(clone):
    shutil.rmtree(clone / "solutions")
    (clone / "drills" / "kernel_check.py").write_text("raise SystemExit('no CUDA for you')\n")
    done = tool(clone, "doctor")
    assert done.returncode == 1
    assert "A small kernel of the doctor's own fails here" in done.stdout
    assert "no CUDA for you" in done.stdout


@pytest.mark.slow
def test_doctor_says_it_is_still_grading_while_it_waits(capsys):
    command = [sys.executable, "-c", "import time; time.sleep(2.5); print('t1 done')"]
    done = tools.run_showing_progress(command, every=1.0)
    assert done.returncode == 0 and done.stdout == "t1 done\n"
    shown = capsys.readouterr().out.splitlines()
    assert shown[:2] == ["  still running (1 s)", "  still running (2 s)"], shown


# ---------------------------------------------------------------------------------------------
# One drill's checks alone: make grade DRILL=t3 CHECK=text
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_check_run_grades_its_checks_and_leaves_the_recorded_grade(clone, tmp_path):
    mine = clone / "mine" / "t1_add.py"
    mine.write_text((ROOT / "solutions" / "t1_add.py").read_text())
    recorded = {
        "grades": {
            "t1": {
                "status": "failed",
                "score": 15.0,
                "max_score": 100.0,
                "graded_at": time.time(),
                "source_sha256": state.fingerprint(mine),
            }
        }
    }
    saved = clone / ".drills" / "state.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps(recorded))
    done = subprocess.run(
        [sys.executable, "grader.py", "t1", "--check", "TINY", "--json", str(tmp_path / "r.json")],
        cwd=clone,
        env=dict(os.environ, NO_COLOR="1"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads((tmp_path / "r.json").read_text())
    (graded,) = document["drills"]
    assert [c["name"] for c in graded["checks"]] == ["handles tiny sizes down to 1"]
    assert document["only_checks"] == ["handles tiny sizes down to 1"]
    assert "Next: the checks matching 'TINY' pass; grade the whole drill" in done.stdout
    assert json.loads(saved.read_text()) == recorded
    assert "failed       15/100" in tool(clone, "progress").stdout


def test_make_lang_zh_is_kept_for_later_commands_where_lc_all_outranks_lang(clone):
    shutil.copy2(ROOT / "Makefile", clone / "Makefile")
    (clone / ".venv").symlink_to(ROOT / ".venv")

    def grade(*lang: str) -> str:
        done = subprocess.run(
            ["make", "--no-print-directory", "grade", "DRILL=t1", *lang],
            cwd=clone,
            env=os.environ | {"LC_ALL": "C.UTF-8"},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert "grade] Error 1" in done.stderr, done.stdout + done.stderr  # graded: not passed
        return done.stdout

    asked = grade("LANG=zh")
    assert "还没开始：" in asked and "之后这里的每条命令都用中文" in asked
    # the commands the grade suggests, as printed, without LANG=: Chinese still
    later = grade()
    assert "还没开始：" in later and "之后这里" not in later  # said once, when it changed
    assert "content/zh/t1_add.md" in later
    assert "提示 1" in tool(clone, "hint", "t1").stdout
    english = grade("LANG=en")
    assert "还没开始" not in english and "every command here speaks English" in english
    assert "还没开始" not in grade()


def test_a_check_text_that_matches_nothing_lists_the_drills_checks():
    # through make: CHECK reaches the grader whole, quote and all
    done = subprocess.run(
        ["make", "--no-print-directory", "grade", "DRILL=t1", "CHECK=it's"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert """no check of t1 has "it's" as its id or in its name""" in done.stderr
    assert all(
        c.id in done.stderr and c.name in done.stderr for c in catalog.find("t1").spec.checks
    )
    refused = {
        ("--check", "tail"): "--check needs one drill",
        ("t1", "--check", "tail", "--format", "junit", "r.xml"): "leave out --check to export",
    }
    for args, says in refused.items():
        done = subprocess.run(
            [sys.executable, "grader.py", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 2 and says in done.stderr, done.stderr
    assert not (ROOT / "r.xml").exists()


@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_an_empty_or_missing_file_points_to_reset(clone, damage):
    mine = clone / "mine" / "t1_add.py"
    if damage == "empty":
        mine.write_text("\n")
    else:
        mine.unlink()
    graded = subprocess.run(
        [sys.executable, "grader.py", "t1"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = {"empty": "mine/t1_add.py is empty", "missing": "mine/t1_add.py does not exist"}
    assert graded.returncode == 1 and said[damage] in graded.stdout, graded.stdout
    assert "make reset DRILL=t1" in graded.stdout, graded.stdout


def test_the_language_asked_for_outranks_the_kept_one_which_outranks_the_locale(
    monkeypatch, tmp_path, capsys
):

    monkeypatch.setattr(state, "STATE", tmp_path / "state.json")
    for name in ("DRILLS_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert chinese.language() == "zh"  # nothing kept: the locale
    monkeypatch.setenv("DRILLS_LANG", "en")
    chinese.keep_choice()
    assert "speaks English" in capsys.readouterr().out
    monkeypatch.delenv("DRILLS_LANG")
    assert chinese.language() == "en"  # kept, over the locale
    monkeypatch.setenv("DRILLS_LANG", "zh")
    assert chinese.language() == "zh"
    chinese.keep_choice()
    chinese.keep_choice()  # unchanged: said once
    assert capsys.readouterr().out.count("中文") == 1
    state.STATE.write_text('{"language": "fr"}')  # not one the tools wrote: dropped
    monkeypatch.delenv("DRILLS_LANG")
    assert chinese.language() == "zh" and "unreadable" in capsys.readouterr().err


def test_progress_and_watch_speak_the_kept_language(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(state, "STATE", tmp_path / "state.json")
    monkeypatch.setenv("DRILLS_LANG", "zh")
    assert tools.progress() == 0
    shown = capsys.readouterr().out
    assert "还没评过分" in shown and "下一步：t1" in shown and "content/zh/t1_add.md" in shown
    assert tools._ago(7200, tools.PROGRESS_WORDS["zh"]["ago"]) == "2 小时前"
    assert tools._ago(7200, tools.PROGRESS_WORDS["en"]["ago"]) == "2 hours ago"
    assert tools._ago(60, tools.PROGRESS_WORDS["en"]["ago"]) == "1 minute ago"
    assert set(tools.WATCH_WORDS["zh"]) == set(tools.WATCH_WORDS["en"])


def test_the_next_line_speaks_the_language_asked_for():
    from drills import report
    from drills.grading import DrillResult

    assert set(report.NEXT_WORDS["zh"]) == set(report.NEXT_WORDS["en"])
    stub = DrillResult("t1", "t1_add", "Vector add", "not_started", 0, 100, 0.1, [])
    stub.source = "mine/t1_add.py"
    said = report.next_step(stub, "mine", [stub], language="zh")
    assert said.startswith("下一步：读 content/zh/t1_add.md") and "make grade DRILL=t1" in said
    passed = DrillResult("t1", "t1_add", "Vector add", "passed", 100, 100, 1.0, [])
    passed.source = "mine/t1_add.py"
    said = report.next_step(None, "mine", [passed], language="zh")
    assert said.startswith("下一步：t2 · ") and "content/zh/t2_softmax.md" in said


def test_reset_compare_and_doctor_speak_the_language_kept(clone, monkeypatch):
    for words in (tools.RESET_WORDS, tools.COMPARE_WORDS, tools.DOCTOR_WORDS, tools.HINT_WORDS):
        assert set(words["zh"]) == set(words["en"])
    (clone / "mine" / "t2_softmax.py").write_text("# my work in progress\n")
    reset = tool(clone, "reset", "t2", lang="zh_CN.UTF-8")
    assert "已备份为 mine/.backup/t2_softmax." in reset.stdout, reset.stdout
    assert "mine/t2_softmax.py 又是未改动的练习模板了" in reset.stdout
    refused = tool(clone, "compare", "t1", lang="zh_CN.UTF-8")
    assert refused.returncode == 1 and "仍然要看：make compare DRILL=t1 YES=1" in refused.stderr
    shutil.copy2(ROOT / "solutions" / "t1_add.py", clone / "mine" / "t1_add.py")
    same = tool(clone, "compare", "t1", "--yes", lang="zh_CN.UTF-8")
    assert "mine/t1_add.py 与参考答案完全相同" in same.stdout
    # the doctor's own lines; the numpy problem it knows, in Chinese
    breaks = {"triton": ("3.6.0", (3, 6, 0)), "numpy": ("2.4.1", (2, 4, 1))}
    monkeypatch.setenv("DRILLS_LANG", "zh")
    (problem,) = tools.known_problems(breaks, on_gpu=False)
    assert "numpy 2.4.1 搭配 triton 3.6.0" in problem and "pip install 'numpy<2.4'" in problem


def test_the_graders_refusals_speak_the_language_kept(monkeypatch, capsys):
    from drills import cli

    monkeypatch.setattr(chinese, "language", lambda: "zh")  # kept, as make grade LANG=zh keeps it
    assert cli.main(["t9"]) == 2
    assert "没有名为 't9' 的练习；练习有 t1, t2, t3, t4" in capsys.readouterr().err
    assert cli.main(["t1", "--check", "zzz"]) == 2
    said = capsys.readouterr().err
    assert "t1 没有哪个检查的 id 是 'zzz'" in said
    assert all(c.id in said for c in catalog.find("t1").spec.checks)
    assert cli.main(["--check", "tail"]) == 2
    assert "--check 只能用于一个练习" in capsys.readouterr().err
    # an instructor's refusals too: each says what was wrong in the language kept
    refused = {
        ("t1", "--format", "moodle", "x.xml"): "没有 'moodle' 这种格式",
        ("t1", "--impl", "no/such/folder"): "--impl 只能是 mine、solutions 或一个文件夹",
        ("t1", "--sandbox-accept-less"): "--sandbox-accept-less 要和 --sandbox 一起用",
        ("t1", "--check", "tail", "--format", "gradescope", "r.json"): "导出时去掉 --check",
        ("t1", "--json", "same.json", "--format", "exercism", "same.json"): "会写进同一个文件",
    }
    for args, says in refused.items():
        assert cli.main(list(args)) == 2, args
        assert says in capsys.readouterr().err, args


def test_the_tools_words_say_the_same_in_each_language():
    """The grader's refusals and the bench's lines: each in every language, with the same
    blanks to fill."""
    from drills import bench, cli

    def blanks(text: str) -> set:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field}

    for table in (cli.REFUSED_WORDS, bench.WORDS):
        english = table["en"]
        for words in table.values():
            assert words.keys() == english.keys()
            for key, text in words.items():
                assert blanks(text) == blanks(english[key]), key
    note = versions.unsupported({"torch": "2.15.0", "triton": "3.5.0"}, "zh")
    assert note.startswith("torch 2.15.0、triton 3.5.0 不在这些练习测试过的版本范围内")
    assert f"{sys.executable} -m pip install" in note
