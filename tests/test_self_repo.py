"""The repo's own tests of its content: lessons point at files that exist, and their
interpreter snippets run."""

import re
import subprocess
import sys
import time

import pytest

from drills import catalog

ROOT = catalog.ROOT
LESSONS = sorted((ROOT / "content").glob("t*.md"))
REPO_PATH = re.compile(r"`((?:solutions|mine|tests|content|drills)/[\w./]+)`")
LINK = re.compile(r"\]\(((?!https?:)[\w./-]+\.\w+)\)")  # relative markdown links and images


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.DOTALL)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_paths_exist(lesson):
    text = lesson.read_text()
    missing = [p for p in REPO_PATH.findall(text) if not (ROOT / p).exists()]
    missing += [p for p in LINK.findall(text) if not (lesson.parent / p).exists()]
    assert not missing, f"{lesson.name} refers to files that do not exist: {missing}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_lesson_snippets_parse(lesson):
    for block in python_blocks(lesson):
        compile(block, lesson.name, "exec")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
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
    from drills.remote import LearnerCode
    from tests.test_t4_matmul import pid_grid

    solution = LearnerCode(
        ROOT / "solutions" / "t4_matmul.py", "solutions/t4_matmul.py", 60, time.time() + 600
    )
    lesson = (ROOT / "content" / "t4_matmul.md").read_text()
    try:
        for num_pid_m, num_pid_n, group in [(4, 4, 1), (4, 4, 2), (5, 4, 2)]:
            tiles = solution.probe_grouped_tile(num_pid_m, num_pid_n, group)
            picture = pid_grid(tiles, num_pid_m, num_pid_n)
            assert f"```\n{picture}\n```" in lesson, (
                f"{num_pid_m}x{num_pid_n}, G={group}:\n{picture}"
            )
    finally:
        solution.close()
