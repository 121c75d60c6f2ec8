"""The repo's own tests of drills/bootstrap.py, which makes `.venv`: it never deletes or changes
an environment it did not make, and it says at once which Python it needs.

Each test runs the script in a folder laid out like a checkout (drills/bootstrap.py and
pyproject.toml), never in the real one.
"""

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from types import SimpleNamespace

import pytest

from drills import bootstrap, catalog

ROOT = catalog.ROOT


@pytest.fixture
def checkout(tmp_path) -> Path:
    (tmp_path / "drills").mkdir()
    shutil.copy(ROOT / "drills" / "bootstrap.py", tmp_path / "drills" / "bootstrap.py")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def run_bootstrap(checkout: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(checkout / "drills" / "bootstrap.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def learners_venv(checkout: Path) -> dict[str, bytes]:
    """A venv as `python -m venv .venv` makes it (without pip, to be quick), with a file of the
    learner's in it; what it holds, to compare with afterwards."""
    venv.EnvBuilder(with_pip=False).create(checkout / ".venv")
    (checkout / ".venv" / "notes.txt").write_text("mine\n")
    return contents(checkout / ".venv")


def contents(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b""
        for p in folder.rglob("*")
        if not p.is_symlink()
    }


def test_a_learners_own_venv_is_left_alone_and_the_missing_packages_are_named(checkout):
    before = learners_venv(checkout)
    done = run_bootstrap(checkout)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "your own .venv lacks torch" in done.stderr
    assert "nothing was installed into it" in done.stderr
    assert contents(checkout / ".venv") == before


def test_make_clean_keeps_a_learners_own_venv(checkout):
    before = learners_venv(checkout)
    done = run_bootstrap(checkout, "--clean")
    assert done.returncode == 0 and "left alone" in done.stdout
    assert contents(checkout / ".venv") == before


def test_a_venv_bootstrap_made_is_recognised_by_its_mark_or_its_old_ready_file(checkout):
    folder = checkout / ".venv"
    folder.mkdir()
    (folder / ".ready").write_text(json.dumps(["torch"]))  # as earlier versions wrote it
    assert run_bootstrap(checkout, "--clean").returncode == 0
    assert not folder.exists()
    folder.mkdir()
    (folder / ".made-by-drills-bootstrap").write_text("")
    assert run_bootstrap(checkout, "--clean").returncode == 0
    assert not folder.exists()
    # a learner's venv that bootstrap found complete says so in .ready: still the learner's
    folder.mkdir()
    (folder / ".ready").write_text(json.dumps({"foreign_venv": ["torch"]}))
    assert run_bootstrap(checkout, "--clean").returncode == 0
    assert folder.exists()


@pytest.mark.parametrize(
    "version, platform, says",
    [
        ((3, 10, 12), "linux", "need Python 3.11 or newer"),
        ((3, 9, 6), "linux", "need Python 3.11 or newer"),
        ((3, 12, 1), "darwin", "macOS has no triton wheel"),
        ((3, 12, 1), "win32", "Use WSL2"),
    ],
)
def test_an_unsupported_python_or_system_gets_one_line(version, platform, says):
    problem = bootstrap.python_problem(version, platform)
    assert problem is not None and says in problem and "\n" not in problem


def test_a_supported_python_on_linux_has_no_problem():
    assert bootstrap.python_problem((3, 11, 0), "linux") is None


OLD_PYTHONS = sorted(Path("/root/.pyenv/versions").glob("3.[6-9].*")) + sorted(
    Path("/root/.pyenv/versions").glob("3.10.*")
)


@pytest.mark.skipif(not OLD_PYTHONS, reason="no Python older than 3.11 on this machine")
@pytest.mark.parametrize("python", OLD_PYTHONS, ids=lambda p: p.name)
def test_an_old_python_is_told_in_one_line_before_anything_else(checkout, python):
    done = subprocess.run(
        [str(python / "bin" / "python"), str(checkout / "drills" / "bootstrap.py")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "need Python 3.11 or newer" in done.stderr
    assert not (checkout / ".venv").exists()


def test_a_learners_own_venv_with_every_package_is_used_as_it_is(checkout):
    learners_venv(checkout)
    python = checkout / ".venv" / "bin" / "python"
    site = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
    ).strip()
    # the learner's venv sees this environment's packages, as `uv sync` would have installed them
    seen = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    Path(site, "learners.pth").write_text("\n".join(seen) + "\n")
    before = contents(checkout / ".venv")
    done = run_bootstrap(checkout)
    assert done.returncode == 0 and "using your own .venv" in done.stdout, done.stderr
    after = contents(checkout / ".venv")
    assert after.pop(".ready") and after == before
    again = run_bootstrap(checkout, "--clean")
    assert again.returncode == 0 and (checkout / ".venv").exists()


@pytest.mark.parametrize(
    "whose_python", ["the venv's own", pytest.param("another", marks=pytest.mark.slow)]
)
def test_a_venv_bootstrap_made_is_updated_in_place_when_the_dependencies_change(
    checkout, whose_python
):
    """Remaking .venv would download 5.5 GB for one changed dependency, and from inside it (an
    activated .venv puts its python first on PATH, so `make` runs bootstrap with it) would
    delete the interpreter running it and the packages the new one would reuse. A venv over
    the machine's own packages (a GPU machine, often offline) takes them as they are, as when
    it was made: a range they are outside of (numpy here) sends pip nowhere."""
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"numpy<2.5"', '"numpy<1"'))
    learners_venv(checkout)
    python = checkout / ".venv" / "bin" / "python"
    site = subprocess.check_output(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True
    ).strip()
    seen = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    Path(site, "_drills_reuse_parent.pth").write_text("\n".join(seen) + "\n")
    (checkout / ".venv" / ".made-by-drills-bootstrap").write_text("made by drills/bootstrap.py\n")
    (checkout / ".venv" / ".ready").write_text(json.dumps(["torch", "triton"]))  # older deps
    runs_it = python if whose_python == "the venv's own" else sys.executable
    offline = os.environ | {"PIP_NO_INDEX": "1", "PIP_CONFIG_FILE": os.devnull}
    done = subprocess.run(
        [str(runs_it), str(checkout / "drills" / "bootstrap.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=offline,
    )
    assert done.returncode == 0 and "updating .venv in place" in done.stdout, done.stderr
    assert "bootstrap: installing" not in done.stdout, done.stdout
    assert (checkout / ".venv" / "notes.txt").read_text() == "mine\n"  # the same venv
    ready = json.loads((checkout / ".venv" / ".ready").read_text())
    assert "numpy<1" in ready  # the new list, read from the checkout's pyproject.toml
    works = subprocess.run([str(python), "-c", "import torch, triton"], check=False)
    assert works.returncode == 0


def test_a_cpu_only_torch_comes_alone_from_pytorchs_cpu_index():
    todo = ["torch", "triton", "numpy", "rich"]
    assert bootstrap.installs(todo, "cpu") == [
        (["torch"], ("--index-url", bootstrap.CPU_TORCH_INDEX)),
        (["triton", "numpy", "rich"], ()),
    ]
    assert bootstrap.installs(todo, "cuda") == [(todo, ())]
    assert bootstrap.installs(["numpy"], "cpu") == [(["numpy"], ())]  # torch already there
    assert bootstrap.installs([], "cpu") == bootstrap.installs([], "cuda") == []  # pip needs one


def base_python_without_torch() -> str | None:
    """The Python this venv was made from, if it cannot import torch (so bootstrap installs)."""
    python = Path(sys.base_prefix) / "bin" / "python3"
    if not python.exists():
        return None
    probe = subprocess.run([str(python), "-c", "import torch"], capture_output=True, check=False)
    return str(python) if probe.returncode != 0 else None


def test_an_unreachable_index_is_one_line_and_leaves_no_venv(checkout):
    python = base_python_without_torch()
    if python is None:
        pytest.skip("the base Python has torch: bootstrap would install nothing")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env |= {
        "PIP_CONFIG_FILE": os.devnull,  # none of this machine's mirrors
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",  # nothing listens there
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "2",
    }
    done = subprocess.run(
        [python, str(checkout / "drills" / "bootstrap.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr[-2000:]
    ours = [line for line in done.stderr.splitlines() if line.startswith("bootstrap:")]
    assert len(ours) == 1 and "nothing was left behind" in ours[0], done.stderr
    assert "Traceback" not in done.stderr
    assert not (checkout / ".venv").exists()


def test_a_full_disk_is_named_as_the_cause_not_the_index(monkeypatch, tmp_path):
    free = {str(bootstrap.ROOT): 200 << 20}  # .venv's disk nearly full; the temp folder fine
    monkeypatch.setattr(bootstrap.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(
        bootstrap.shutil,
        "disk_usage",
        lambda folder: SimpleNamespace(free=free.get(str(folder), 50 << 30)),
    )
    full = bootstrap.full_disks()
    assert full == [str(bootstrap.ROOT)]
    said = bootstrap.likely_cause(full)
    assert str(bootstrap.ROOT) in said and "1 GiB free" in said and "index" not in said
    assert "unreachable index" in bootstrap.likely_cause([])
    assert "full disk" in bootstrap.likely_cause([])  # where none was seen full, pip tells


def test_a_cpu_only_torch_is_told_from_pypis_by_its_version(monkeypatch):
    monkeypatch.setattr(bootstrap, "installed_version", {"torch": "2.13.0+cpu"}.get)
    assert bootstrap.cpu_only_torch()
    monkeypatch.setattr(bootstrap, "installed_version", {"torch": "2.14.1"}.get)  # PyPI's
    assert not bootstrap.cpu_only_torch()
    monkeypatch.setattr(bootstrap, "installed_version", {"triton": "3.10.0+git1a2b"}.get)
    assert bootstrap.version_of("triton") == (3, 10)


def test_an_unknown_bootstrap_option_is_a_usage_error(checkout):
    done = run_bootstrap(checkout, "--torch", "rocm")
    assert done.returncode == 2 and "--torch cpu|cuda" in done.stderr, done.stderr
