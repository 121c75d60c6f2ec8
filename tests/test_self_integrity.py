"""The repo's own tests of drills/integrity.py: the guard puts the judge's files back whatever a
learner's code left in their place (an edit, a link, a FIFO, a flood of files), without writing
or reading through a link, and without blocking."""

import os
import threading
from pathlib import Path

import pytest

from drills import integrity

FILES = {
    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p drills.judge.plugin'\n",
    "grader.py": "print('grader')\n",
    "drills/judge/testing/case.py": "JUDGE = 1\n",
    "tests/test_t1_add.py": "def test_add(): pass\n",
    "tests/negatives/t1_add/wrong.py": "WRONG = 1\n",
}


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "mine").mkdir()
    return root


def checked(guard: integrity.Guard) -> list[str]:
    """guard.check(), which must come back within a few seconds whatever it finds."""
    found: list = []
    thread = threading.Thread(target=lambda: found.append(guard.check()), daemon=True)
    thread.start()
    thread.join(10)
    assert found, "the guard blocked"
    return found[0]


def assert_pristine(root: Path) -> None:
    for name, text in FILES.items():
        path = root / name
        assert not path.is_symlink() and path.read_text() == text, name
    assert sorted(p.name for p in (root / "tests" / "negatives" / "t1_add").iterdir()) == [
        "wrong.py"
    ]


def test_an_untouched_repo_reads_as_unchanged(repo):
    guard = integrity.Guard(repo)
    (repo / "mine" / "t1_add.py").write_text("x = 1\n")  # the learner's folder is theirs
    assert checked(guard) == []


def test_edited_files_are_restored_and_kept_aside(repo):
    guard = integrity.Guard(repo)
    (repo / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = '-p evil'\n")
    (repo / "tests" / "conftest.py").write_text("import evil\n")
    assert checked(guard) == ["pyproject.toml", "tests/conftest.py"]
    assert_pristine(repo)
    kept = list((repo / ".drills" / "quarantine").rglob("*.*"))
    assert sorted(p.name for p in kept) == ["conftest.py", "pyproject.toml"]


def test_a_fifo_in_place_of_a_file_is_moved_aside_without_being_opened(repo):
    guard = integrity.Guard(repo)
    os.mkfifo(repo / "tests" / "stuck.py")
    (repo / "tests" / "test_t1_add.py").unlink()
    os.mkfifo(repo / "tests" / "test_t1_add.py")
    assert checked(guard) == ["tests/stuck.py", "tests/test_t1_add.py"]
    assert_pristine(repo)


def test_links_are_never_written_or_read_through(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("root only\n")
    os.mkfifo(outside / "fifo")
    guard = integrity.Guard(repo)
    (repo / "grader.py").unlink()
    (repo / "grader.py").symlink_to(outside / "secret")
    (repo / "tests" / "reads_a_fifo.py").symlink_to(outside / "fifo")
    negatives = repo / "tests" / "negatives"
    negatives.rename(tmp_path / "moved")
    negatives.symlink_to(outside, target_is_directory=True)
    assert "grader.py" in checked(guard)
    assert_pristine(repo)
    assert (outside / "secret").read_text() == "root only\n"
    assert sorted(p.name for p in outside.iterdir()) == ["fifo", "secret"]


def test_a_flooded_tree_is_put_aside_whole_and_rebuilt(repo, monkeypatch):
    monkeypatch.setattr(integrity, "MAX_ENTRIES", 50)
    guard = integrity.Guard(repo)
    flood = repo / "tests" / "flood"
    flood.mkdir()
    for i in range(200):
        (flood / f"{i}.py").write_text("")
    assert "tests" in checked(guard)
    assert_pristine(repo)
    assert not flood.exists()


def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "file").write_bytes(b"12345")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    assert integrity.read_regular(tmp_path / "file") == b"12345"
    for name, says in [("fifo", "not a regular file"), ("link", "a symbolic link")]:
        with pytest.raises(integrity.NotRegular, match=says):
            integrity.read_regular(tmp_path / name)
    with pytest.raises(integrity.NotRegular, match="larger than 4 bytes"):
        integrity.read_regular(tmp_path / "file", 4)


def test_a_module_added_to_a_folder_on_the_python_path_is_named(repo, tmp_path, monkeypatch):
    """Where no namespace confines a learner's process, a sitecustomize.py it adds to any
    folder on sys.path would run in every later Python, the judge's included."""
    on_path = tmp_path / "site"
    on_path.mkdir()
    (on_path / "existing.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(on_path))
    guard = integrity.Guard(repo)
    assert checked(guard) == []
    (on_path / "sitecustomize.py").write_text("import os\n")
    assert checked(guard) == [f"{on_path / '*'} (in the Python environment)"]
    assert sorted(p.name for p in on_path.iterdir()) == ["existing.py"]  # put aside
    assert [p.name for p in (repo / ".drills" / "quarantine").rglob("sitecustomize.py")]
