"""The repo's own tests of its content: lessons point at files that exist, and their
interpreter snippets run."""

import ast
import builtins
import re
import shlex
import subprocess
import sys
import time

import pytest

from drills import catalog, runtime

ROOT = catalog.ROOT
# the lessons, the pages they share, and the hints `make hint` shows one at a time
SHARED_PAGES = [ROOT / "content" / "glossary.md", ROOT / "content" / "debugging.md"]
LESSONS = (
    sorted((ROOT / "content").glob("t*.md"))
    + SHARED_PAGES
    + [d.hints for d in catalog.DRILLS]
    + sorted((ROOT / "content" / "zh").rglob("*.md"))  # the Chinese edition
)
REPO_PATH = re.compile(r"`((?:solutions|mine|tests|content|drills)/[\w./]+)`")
LINK = re.compile(r"\]\(((?!https?:)[\w./-]+\.\w+)\)")  # relative markdown links and images


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.DOTALL)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_paths_exist(lesson):
    text = lesson.read_text()
    missing = [p for p in REPO_PATH.findall(text) if not (ROOT / p).exists()]
    missing += [p for p in LINK.findall(text) if not (lesson.parent / p).exists()]
    assert not missing, f"{lesson.name} refers to files that do not exist: {missing}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_snippets_parse(lesson):
    for block in python_blocks(lesson):
        compile(block, lesson.name, "exec")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_interpreter_snippets_run(lesson, tmp_path):
    """Snippets that switch the interpreter on are meant to run anywhere: run them."""
    runnable = [b for b in python_blocks(lesson) if 'os.environ["TRITON_INTERPRET"]' in b]
    for i, block in enumerate(runnable):
        script = tmp_path / f"snippet_{i}.py"
        script.write_text(block)
        done = subprocess.run(
            [sys.executable, str(script)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{lesson.name} snippet {i} failed:\n{done.stderr}"


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_stub_mirrors_solution(drill):
    """The stub's functions are the solution's, in the same order (the solution may add
    helpers and the optional exercise), and numbered TODOs to follow."""
    defined = re.compile(r"^def (\w+)\(", re.MULTILINE)
    stub, solution = drill.stub.read_text(), drill.source("solutions").read_text()
    in_stub = defined.findall(stub)
    assert [name for name in defined.findall(solution) if name in in_stub] == in_stub
    assert f"TODO({drill.id}.1)" in stub
    assert "raise NotStarted" in stub


def test_t4_lesson_pictures_match_the_reference_helper():
    """The lesson's pid pictures are what the reference's grouped_tile computes."""
    from drills.judge.remote import LearnerCode
    from tests.test_t4_matmul import pid_grid, probe_grouped_tile

    solution = LearnerCode(
        ROOT / "solutions" / "t4_matmul.py", "solutions/t4_matmul.py", 60, time.time() + 600
    )
    lesson = (ROOT / "content" / "t4_matmul.md").read_text()
    try:
        for num_pid_m, num_pid_n, group in [(4, 4, 1), (4, 4, 2), (5, 4, 2)]:
            tiles = probe_grouped_tile(solution, num_pid_m, num_pid_n, group)
            picture = pid_grid(tiles, num_pid_m, num_pid_n)
            assert f"```\n{picture}\n```" in lesson, (
                f"{num_pid_m}x{num_pid_n}, G={group}:\n{picture}"
            )
    finally:
        solution.close()


# ---------------------------------------------------------------------------------------------
# The learner's path: each drill's lesson (its notes page holds the research)
# ---------------------------------------------------------------------------------------------

PATHS = [drill.lesson for drill in catalog.DRILLS]
MOST_WORDS = 3300  # "about 3,000": the lesson is the path to the task, the notes hold the rest
URL = re.compile(r"https?://[^\s)>\]`]+")


def paragraphs(path) -> list[str]:
    return re.split(r"\n\s*\n", path.read_text())


@pytest.mark.parametrize("lesson", PATHS, ids=lambda p: p.stem)
def test_lesson_is_a_short_path(lesson):
    words = len(lesson.read_text().split())
    assert words <= MOST_WORDS, f"{lesson.name} has {words} words: move research to its notes"


@pytest.mark.parametrize("lesson", PATHS, ids=lambda p: p.stem)
def test_lesson_does_not_show_the_tests_before_a_pass(lesson):
    """A link into tests/ shows the checks' inputs and the wrong kernels: only after a pass."""
    early = [
        p.strip()[:80]
        for p in paragraphs(lesson)
        if re.search(r"\(\.\./tests/|`tests/", p) and "after you pass" not in p.lower()
    ]
    assert not early, f"{lesson.name} points into tests/ before a pass: {early}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_links_are_well_formed(lesson):
    for url in URL.findall(lesson.read_text()):
        assert url.startswith("https://"), f"{lesson.name}: not https: {url}"
        host = url.removeprefix("https://").split("/")[0]
        assert re.fullmatch(r"[\w-]+(\.[\w-]+)+", host), f"{lesson.name}: bad host in {url}"
        assert not url.endswith((".", ",", ";", ":")), f"{lesson.name}: {url} ends in punctuation"


def top_level_names(path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def called_names(block: str) -> set[str]:
    """Functions a snippet calls (or launches) by a bare name it does not define itself."""
    tree = ast.parse(block)
    defined = {
        n.name if isinstance(n, (ast.FunctionDef, ast.ClassDef)) else n.id
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.ClassDef))
        or (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    }
    defined |= {
        a.asname or a.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    defined |= {
        a.arg for n in ast.walk(tree) if isinstance(n, ast.arguments) for a in n.args + n.kwonlyargs
    }
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            target = node.func.value if isinstance(node.func, ast.Subscript) else node.func
            if isinstance(target, ast.Name):
                called.add(target.id)
    return called - defined - set(dir(builtins))


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_lesson_snippets_call_what_the_drill_has(drill):
    """A name a snippet calls without defining it is the stub's or the reference's."""
    known = top_level_names(drill.stub) | top_level_names(drill.source("solutions"))
    for page in (drill.lesson, drill.hints):
        for block in python_blocks(page):
            unknown = called_names(block) - known
            assert not unknown, f"{page.name} calls what neither file defines: {unknown}"


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_a_lesson_leaves_its_hints_to_make_hint(drill):
    """A hint printed on the lesson's page is read while scrolling, the near-solution one too:
    the page says how to ask for one instead."""
    text = drill.lesson.read_text()
    assert not re.search(r"^#+ Hints?\b", text, flags=re.MULTILINE), drill.lesson.name
    assert f"`make hint DRILL={drill.id}`" in text, drill.lesson.name


NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"],
        start=1,
    )
}


def test_t4_lesson_counts_the_configs_it_means():
    """ "N configs" in the T4 lesson is the length of a list the learner has: the stub's, the
    reference's GPU list, or the interpreter's one."""
    from drills.loading import load

    stub, reference = load(catalog.find("t4").stub), load(ROOT / "solutions" / "t4_matmul.py")
    sizes = {len(stub.GPU_CONFIGS), len(reference.GPU_CONFIGS), 1}
    lesson = catalog.find("t4").lesson.read_text()
    for said in re.findall(r"\b(\w+) configs\b", lesson):
        count = int(said) if said.isdigit() else NUMBER_WORDS.get(said.lower())
        assert count is None or count in sizes, f"the T4 lesson counts {said} configs: {sizes}"
    # the autotuner compiles and times one kernel per config of the learner's list
    for said in re.findall(r"\b(\w+) kernels\b", lesson):
        count = int(said) if said.isdigit() else NUMBER_WORDS.get(said.lower())
        assert count in (None, len(stub.GPU_CONFIGS)), f"the T4 lesson times {said} kernels"


def test_the_snippet_check_finds_a_name_only_the_reference_had():
    block = "a_desc = make_descriptor(a)\nlaunch_tiled[grid](a_desc, b, out)\nprint(len(a))\n"
    assert called_names(block) == {"make_descriptor", "launch_tiled"}


# ---------------------------------------------------------------------------------------------
# Commands in the lessons run as written, from the repository's root of a fresh clone
# ---------------------------------------------------------------------------------------------

FENCED = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
SHELLS = {"sh", "bash", "console", "shell"}
CODE_SPAN = re.compile(r"`([^`]+)`")
RUN_BY_A_LEARNER = {"make", "python", "python3", "pip", "pip3", ".venv/bin/python"}
ASSIGNMENT = re.compile(r"\w+=.*")


def shell_commands(text: str) -> list[str]:
    """The commands a page asks to run: the lines of its sh/bash/console blocks (without their
    comments), its lines that start with `$ `, and its code spans that start with a program a
    learner runs."""
    lines = [
        re.sub(r"(^|\s)#.*", "", line)
        for lang, body in FENCED.findall(text)
        if lang in SHELLS
        for line in body.split("\n")
    ]
    prose = FENCED.sub("", text)
    lines += re.findall(r"^\$ (.*)$", prose, re.MULTILINE)
    lines += [span for span in CODE_SPAN.findall(prose) if _program(span) in RUN_BY_A_LEARNER]
    commands = [" ".join(line.removeprefix("$ ").split()) for line in lines]
    return [c for c in commands if c]


def _without_assignments(words: list[str]) -> list[str]:
    """The command's words after any VAR=value it starts with."""
    while words and ASSIGNMENT.fullmatch(words[0]):
        words = words[1:]
    return words


def _program(command: str) -> str:
    words = _without_assignments(command.split())
    return words[0] if words else ""


def makefile() -> tuple[set[str], set[str]]:
    """The Makefile's targets and the variables it reads."""
    text = (ROOT / "Makefile").read_text()
    targets = {
        name
        for line in re.findall(r"^([\w.][\w. -]*):(?!=)", text, re.MULTILINE)
        for name in line.split()
    }
    return targets, set(re.findall(r"\$\((\w+)\)", text))


DRILL_NAMES = {name for d in catalog.DRILLS for name in (d.id, d.slug)}


def command_problem(command: str) -> str | None:
    """Why `command` would not run as written from the repository's root, or None."""
    program, *args = _without_assignments(shlex.split(command))
    if program in {"python", "python3", "pip", "pip3"}:
        return (
            f"{program} is not the project's environment: write make run FILE=..., "
            "or .venv/bin/python"
        )
    if program == ".venv/bin/python" and args and args[0] not in ("-m", "-c"):
        return None if (ROOT / args[0]).is_file() else f"{args[0]} does not exist"
    if program != "make":
        return None
    targets, variables = makefile()
    for arg in args:
        name, is_assignment, value = arg.partition("=")
        if not is_assignment and arg not in targets:
            return f"the Makefile has no target {arg!r}"
        if is_assignment and name not in variables:
            return f"the Makefile reads no variable {name!r}"
        if name == "FILE" and not (ROOT / value).is_file():
            return f"{value} does not exist"
        if name == "DRILL" and value not in DRILL_NAMES:
            return f"there is no drill {value!r}"
    return None


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_lesson_commands_run_as_written(lesson):
    commands = shell_commands(lesson.read_text())
    problems = [f"{c}: {command_problem(c)}" for c in commands if command_problem(c)]
    assert not problems, f"{lesson.name} has commands that would not run: {problems}"


def test_the_command_check_finds_what_would_not_run():
    text = (
        "Run `python3 content/experiments/t2_long_rows.py` or `tl.load(x)`, then:\n\n"
        "```sh\n"
        "make grade DRIL=t1\n"
        "$ make gradee\n"
        "make hint DRILL=t9\n"
        ".venv/bin/python content/experiments/no_such_script.py\n"
        "TRITON_INTERPRET=0 make run FILE=content/experiments/t2_long_rows.py  # runs\n"
        "```\n"
    )
    fine = "TRITON_INTERPRET=0 make run FILE=content/experiments/t2_long_rows.py"
    commands = shell_commands(text)
    assert len(commands) == 6 and fine in commands, commands
    assert [c for c in commands if command_problem(c) is None] == [fine]


def test_a_script_a_lesson_shows_is_the_file_it_runs():
    """A snippet shown with `make run FILE=...` just before it is that file, word for word."""
    shown = re.compile(r"`make run\s+FILE=([\w./]+)` runs it:\n\n```python\n(.*?)```", re.DOTALL)
    found = [m for lesson in LESSONS for m in shown.findall(lesson.read_text())]
    assert found, "no lesson shows the script it runs"
    for path, code in found:
        assert (ROOT / path).read_text() == code, f"{path} is not the snippet the lesson shows"


def test_readme_quotes_the_line_make_names_when_a_grade_fails():
    """make names the line of the grade recipe ("make: *** [Makefile:32: grade] Error 1")."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    recipe = lines.index("grade: $(READY)") + 2  # the recipe's first line, counted from 1
    assert f"[Makefile:{recipe}: grade] Error 1" in (ROOT / "README.md").read_text()


# ---------------------------------------------------------------------------------------------
# Figures come from scripts in the repo, with their output stored beside them
# ---------------------------------------------------------------------------------------------

EXPERIMENTS = ROOT / "content" / "experiments"
PAGES = sorted((ROOT / "content").rglob("*.md"))
# Scripts that cannot produce output here, each with the reason. The notes quote no figure
# from them.
NO_STORED_OUTPUT = {
    # needs Nsight Compute (ncu), which the GPU the notes were measured on does not have
    "t4_transposed_b_ncu.py",
}
UNSTORED = re.compile(r"\bnot\s+(?:stored|kept)\b", re.IGNORECASE)


def test_every_experiment_has_its_output_stored():
    """content/experiments/NAME.py has its output beside it as NAME.out, unless the allowlist
    says why it cannot."""
    scripts = sorted(p.name for p in EXPERIMENTS.glob("*.py"))
    assert scripts, f"no scripts in {EXPERIMENTS}"
    missing = [
        s
        for s in scripts
        if s not in NO_STORED_OUTPUT and not (EXPERIMENTS / s).with_suffix(".out").is_file()
    ]
    assert not missing, f"experiments without their output stored as NAME.out: {missing}"
    stale = [
        s
        for s in sorted(NO_STORED_OUTPUT)
        if s not in scripts or (EXPERIMENTS / s).with_suffix(".out").is_file()
    ]
    assert not stale, f"on the allowlist, but gone or with a stored output: {stale}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT / "content")))
def test_pages_quote_no_output_that_is_not_stored(page):
    """A figure comes from a stored output: a page may not quote a run it says was not kept."""
    text = page.read_text()
    said = [
        " ".join(text[max(0, m.start() - 60) : m.end()].split()) for m in UNSTORED.finditer(text)
    ]
    assert not said, f"{page.name} quotes output that is not stored: {said}"


def test_the_unstored_check_reads_across_a_line_break():
    assert UNSTORED.search("that output was not\nstored") and UNSTORED.search("Not kept")
    assert not UNSTORED.search("The output is stored: the table")


GPU_EXPERIMENTS = sorted(p for p in EXPERIMENTS.glob("*.py") if "Needs a GPU" in p.read_text())
GUARD = "from drills.runtime import exit_unless_gpu\nexit_unless_gpu(__file__)\nimport torch"


@pytest.mark.parametrize("script", GPU_EXPERIMENTS, ids=lambda p: p.stem)
def test_an_experiment_that_needs_a_gpu_checks_for_one_before_torch(script):
    assert GUARD in script.read_text(), f"{script.name} does not call exit_unless_gpu first"


@pytest.mark.skipif(not runtime.no_cuda_driver(), reason="this machine can load a CUDA driver")
def test_an_experiment_says_in_one_line_that_it_needs_a_gpu_and_exits_2():
    # the README's example of `make run`
    done = subprocess.run(
        [sys.executable, "content/experiments/t2_long_rows.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == "", (done.returncode, done.stdout)
    said = (
        "t2_long_rows.py needs an NVIDIA GPU, and this machine has none: what it printed on "
        "an H200 is in content/experiments/t2_long_rows.out"
    )
    assert done.stderr.strip().splitlines() == [said], done.stderr
