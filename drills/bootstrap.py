"""Make `.venv`, the environment every make target runs in (standard library only).

Run by the Makefile on first use, and again whenever pyproject.toml changes.

- If the Python that runs this script can already import torch and triton (a GPU machine, often
  offline), the venv reuses that installation through a .pth file and installs only what is
  missing, so nothing large is downloaded again.
- Otherwise the venv is a plain one and pip installs every dependency into it. `--torch cpu`
  (make TORCH=cpu) takes torch from PyTorch's CPU-only index: about 1.9 GB in all instead of
  5.5 GB, and half the memory per process, for a machine that grades on the CPU interpreter.
  It is not the default: the CPU wheel does not pin triton, so pip takes the newest (here
  torch 2.13.0+cpu came with triton 3.9.0, where PyPI's torch 2.14.1 pins 3.8.0).

When pyproject.toml's dependencies change, a `.venv` this script made is updated in place: pip
installs what the new list asks for and the `.venv` lacks, keeping its torch's build.

A `.venv` this script did not make (the learner's own: `python -m venv .venv`, `uv sync`) is
never deleted or changed: it is used as it is when it has everything, and otherwise the script
stops and says what is missing.

This file runs on any Python 3 far enough to say which Python it needs: the check comes first.
"""

import sys

NEEDED = (3, 11)


def python_problem(version, platform):  # no annotations: Python 3.8 evaluates them
    """Why the drills cannot run on this Python or system, in one line; None if they can."""
    if platform == "darwin":
        return (
            "bootstrap: macOS has no triton wheel, so no kernel can run here, not even on the "
            "CPU interpreter. Use a Linux machine, or a free GPU notebook (Colab, Kaggle)."
        )
    if platform in ("win32", "cygwin"):
        return (
            "bootstrap: native Windows has no triton wheel. Use WSL2 (Ubuntu): clone the "
            "repository there and run make grade inside it."
        )
    if tuple(version[:2]) < NEEDED:
        found = ".".join(map(str, version[:3]))
        return (
            f"bootstrap: the drills need Python {NEEDED[0]}.{NEEDED[1]} or newer, and "
            f"{sys.executable} is Python {found}. Install a newer one (Ubuntu 22.04: sudo apt "
            "install python3.11 python3.11-venv; or pyenv, or uv python install 3.11) and run "
            "make again with PYTHON=python3.11."
        )
    return None


if __name__ == "__main__":
    _problem = python_problem(tuple(sys.version_info), sys.platform)
    if _problem:
        print(_problem, file=sys.stderr)
        sys.exit(2)

import contextlib  # noqa: E402 - after the version check: tomllib needs 3.11
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import tomllib  # noqa: E402
import venv  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
# PyTorch's own index of CPU-only wheels (torch 2.x+cpu), which need no CUDA libraries.
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
READY = VENV / ".ready"
TESTS_READY = VENV / ".tests-ready"  # made once the `tests` extra is installed too
# Written into a venv this script made, as soon as it exists: only such a venv is ever remade.
# Earlier versions of this script marked theirs with READY alone, holding the dependency list;
# in a learner's own venv READY says so ({"foreign_venv": ...}).
MADE_HERE = VENV / ".made-by-drills-bootstrap"
# In a venv layered over the packages of the Python that made it: the folders it sees them in.
REUSE_PTH = "_drills_reuse_parent.pth"


def requirements() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["dependencies"]


def has_torch_and_triton(python: str) -> bool:
    probe = subprocess.run([python, "-c", "import torch, triton"], capture_output=True, check=False)
    return probe.returncode == 0


def venv_python(venv_folder: Path = VENV) -> str:
    return str(venv_folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def made_here() -> bool:
    if MADE_HERE.exists():
        return True
    try:
        return isinstance(json.loads(READY.read_text()), list)
    except (OSError, ValueError):
        return False


def remove_own_venv() -> None:
    """Delete the venv this script made before; never a learner's own."""
    if VENV.exists() and made_here():
        shutil.rmtree(VENV)


def make_venv(reuse: bool) -> None:
    remove_own_venv()
    if reuse:
        layered_venv(VENV)
    else:
        venv.EnvBuilder(with_pip=True).create(VENV)
    MADE_HERE.write_text("made by drills/bootstrap.py; make clean removes it\n")


def layered_venv(folder: Path) -> Path:
    """A venv without pip that sees, after its own site-packages, every package of the Python
    running this: what is installed into it comes first. A venv made from inside another venv
    cannot see that venv's packages with --system-site-packages (it sees only the base
    interpreter's), so the layering goes through a .pth file. Returns its site-packages."""
    venv.EnvBuilder(with_pip=False).create(folder)
    site = site_packages(folder)
    parent_paths = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    (site / REUSE_PTH).write_text("\n".join(parent_paths) + "\n")
    return site


def site_packages(folder: Path = VENV) -> Path:
    return Path(
        subprocess.check_output(
            [venv_python(folder), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            text=True,
        ).strip()
    )


def layered() -> bool:
    """Whether .venv is layered over the packages of the Python that made it (layered_venv)."""
    return (site_packages() / REUSE_PTH).exists()


def missing(names: list[str]) -> list[str]:
    script = (
        "import importlib.metadata as m, json, sys\n"
        "out = []\n"
        "for n in json.loads(sys.argv[1]):\n"
        "    name = n.split(';')[0].split('<')[0].split('>')[0].split('=')[0].strip()\n"
        "    try: m.version(name)\n"
        "    except m.PackageNotFoundError: out.append(n)\n"
        "print(json.dumps(out))\n"
    )
    out = subprocess.check_output([venv_python(), "-c", script, json.dumps(names)], text=True)
    return json.loads(out)


class InstallFailed(Exception):
    """pip could not install what .venv needs; str() says what, in one line."""


def pip_install(packages: list[str], *options: str) -> None:
    """pip's own progress shows (what it downloads, how big, how far): torch alone is about a
    gigabyte, minutes on a slow line."""
    print(f"bootstrap: installing {' '.join(packages)} {' '.join(options)}".rstrip(), flush=True)
    command = [venv_python(), "-m", "pip", "install", *options, *packages]
    if subprocess.call(command) != 0:
        raise InstallFailed(f"pip could not install {' '.join(packages)} (its error is above)")


LOW_DISK = 1 << 30  # bytes: below this, an install of several gigabytes has run out of room


def full_disks() -> list[str]:
    """The folders pip writes to (.venv, its temporary files) whose disks are all but full,
    looked at before the half-made .venv is removed and frees its space again."""
    full = []
    for folder in sorted({str(ROOT), tempfile.gettempdir()}):
        with contextlib.suppress(OSError):  # a folder that cannot be looked at tells nothing
            if shutil.disk_usage(folder).free < LOW_DISK:
                full.append(folder)
    return full


def likely_cause(full: list[str]) -> str:
    """What most likely stopped pip, in a sentence: a full disk where one is seen, else the
    two usual causes, for pip's own error to tell apart."""
    if full:
        return (
            f"The disk of {' and of '.join(full)} has under 1 GiB free, and the install needs "
            "gigabytes (about 5.5 GB with CUDA's torch, 1.9 GB with TORCH=cpu): free some "
            "space, then run `make grade` again."
        )
    return (
        "The usual causes are an unreachable index (no network, a proxy) and a full disk: "
        "pip's error above says which. Run `make grade` again once it is fixed."
    )


def installs(todo: list[str], torch: str) -> list[tuple[list[str], tuple[str, ...]]]:
    """(packages, pip options) for each pip install that gets `todo`: with `torch` "cpu",
    torch first, alone, from the CPU-only index (its other packages come from PyPI)."""
    torch_first = [p for p in todo if p.split(";")[0].strip().startswith("torch")]
    if torch != "cpu" or not torch_first:
        return [(todo, ())] if todo else []
    rest = [p for p in todo if p not in torch_first]
    return [(torch_first, ("--index-url", CPU_TORCH_INDEX))] + ([(rest, ())] if rest else [])


def installed_version(name: str) -> str:
    """The version of `name` installed in .venv, as its metadata gives it (2.13.0+cpu)."""
    return subprocess.check_output(
        [venv_python(), "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
        text=True,
    ).strip()


def cpu_only_torch() -> bool:
    """Whether .venv's torch is a CPU-only build: PyTorch's CPU index marks its versions
    (2.13.0+cpu), and PyPI's torch, which brings CUDA's libraries, has no such mark."""
    return installed_version("torch").endswith("+cpu")


def version_of(name: str) -> tuple[int, ...]:
    """(major, minor) of `name` in .venv."""
    release = installed_version(name).split("+")[0].split(".")[:2]
    return tuple(int(p) for p in release if p.isdigit())


def runs_from_venv() -> bool:
    """Whether .venv's own python runs this script (python3 on PATH, with .venv activated)."""
    return VENV.exists() and Path(sys.prefix).resolve() == VENV.resolve()


def update_in_place(wanted: str, torch: str) -> int:
    """Bring a .venv this script made up to pyproject.toml where it is: pip installs only what
    the new list asks that .venv lacks, so a changed dependency costs its own download, not the
    5.5 GB of a new .venv; and from inside the .venv, remaking it would delete the interpreter
    running this, and the packages a remade venv would reuse from it. Its torch keeps its build:
    a CPU-only one is replaced, if the new range asks it to be, from the CPU-only index."""
    why = (
        "its own python runs this" if runs_from_venv() else "pyproject.toml's dependencies changed"
    )
    print(f"bootstrap: updating .venv in place ({why})", flush=True)
    # a venv over the machine's own torch and triton (often offline) takes the machine's
    # packages as they are, as when it was made: only a package it lacks is installed
    todo = missing(requirements()) if layered() else requirements()
    build = "cpu" if cpu_only_torch() else torch
    for packages, options in installs(todo, build):
        pip_install(packages, *options)
    READY.write_text(wanted)
    print(f"bootstrap: ready ({venv_python()})")
    return 0


def use_foreign_venv(wanted: str) -> int:
    """A .venv the learner made: used untouched if it has a new enough Python and every
    package; else nothing is changed and the learner is told what to do."""
    python = venv_python()
    if not Path(python).exists():
        print(
            f"bootstrap: {VENV} exists but has no {python}, and it was not made by this "
            "script, so it is left alone. Move it away (mv .venv .venv.mine) and run make "
            "again, or make it a venv with what pyproject.toml lists.",
            file=sys.stderr,
        )
        return 2
    version = subprocess.run(
        [python, "-c", "import sys; print(*sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    if tuple(int(v) for v in version) < NEEDED:
        print(
            f"bootstrap: your .venv has Python {'.'.join(version)}; the drills need "
            f"{NEEDED[0]}.{NEEDED[1]} or newer. It is yours, so it is left alone: move it away "
            "(mv .venv .venv.mine) and run make again.",
            file=sys.stderr,
        )
        return 2
    todo = missing(requirements())
    if todo:
        quoted = " ".join(f"'{p}'" if set(p) & set("<>=;") else p for p in todo)
        print(
            f"bootstrap: your own .venv lacks {', '.join(todo)}. It is yours, so nothing was "
            f"installed into it. Either install them (.venv/bin/python -m pip install {quoted}) "
            "and run make again, or move it away (mv .venv .venv.mine) and let make set up "
            "its own.",
            file=sys.stderr,
        )
        return 2
    READY.write_text(json.dumps({"foreign_venv": json.loads(wanted)}))
    print(f"bootstrap: using your own .venv ({python}), which has every package")
    return 0


def clean() -> int:
    """`make clean`: remove .venv if this script made it; a learner's own stays."""
    if VENV.exists() and not made_here():
        print(f"bootstrap: {VENV} is your own (not made by make), so it is left alone.")
        return 0
    remove_own_venv()
    return 0


USAGE = "usage: bootstrap.py [--clean | [--torch cpu|cuda] [--with-tests]]"


def main() -> int:
    args = sys.argv[1:]
    if args == ["--clean"]:
        return clean()
    with_tests = "--with-tests" in args
    args = [a for a in args if a != "--with-tests"]
    torch = "cuda"
    if args[:1] == ["--torch"] and args[1:] in (["cpu"], ["cuda"]):
        torch = args[1]
    elif args:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        status = make_ready(torch)
        if status or not with_tests:
            return status
        return add_test_packages()
    except InstallFailed as e:  # a later pip run: .venv is kept as it is, and make tries again
        print(f"bootstrap: {e}", file=sys.stderr)
        return 2


def make_ready(torch: str) -> int:
    """A .venv with every dependency of pyproject.toml, made (if it is this script's to make)
    with `torch` "cpu" or "cuda"; 0 when it is ready."""
    wanted = json.dumps(requirements())
    if Path(venv_python()).exists() and READY.exists() and READY.read_text() == wanted:
        READY.touch()  # pyproject.toml changed, but not its dependencies
        return 0
    if VENV.exists() and not made_here():
        return use_foreign_venv(wanted)
    if runs_from_venv() or (Path(venv_python()).exists() and READY.exists()):
        return update_in_place(wanted, torch)
    reuse = has_torch_and_triton(sys.executable)
    where = (
        f"reusing torch and triton from {sys.executable}"
        if reuse
        else f"installing everything, torch for {'the CPU only' if torch == 'cpu' else 'CUDA'}"
    )
    print(f"bootstrap: making .venv ({where})", flush=True)
    make_venv(reuse)
    try:
        for packages, options in installs(missing(requirements()), torch):
            pip_install(packages, *options)
    except (InstallFailed, KeyboardInterrupt) as e:
        if isinstance(e, InstallFailed):
            why = f"{e}; nothing was left behind. {likely_cause(full_disks())}"
        else:
            why = "interrupted; nothing was left behind"
        remove_own_venv()  # nothing half-made is left to be mistaken for an environment
        print(f"bootstrap: {why}", file=sys.stderr)
        return 2
    if torch == "cpu" and not reuse and not cpu_only_torch():
        print(
            "bootstrap: warning: TORCH=cpu asked for the CPU-only torch, and pip installed "
            f"torch {installed_version('torch')} with CUDA's libraries: an extra index in pip's "
            "configuration (`pip config list`) offered a newer torch than PyTorch's CPU index. "
            "It works, only larger. For the CPU-only one: make clean, then "
            "PIP_CONFIG_FILE=/dev/null make TORCH=cpu (pip then reads no configuration file).",
            file=sys.stderr,
        )
    # numpy 2.4 broke every runtime-bounded loop in triton's interpreter up to 3.6 (fixed in 3.7).
    if version_of("triton") < (3, 7) and version_of("numpy") >= (2, 4):
        if reuse:
            print(
                "bootstrap: warning: numpy >= 2.4 with triton < 3.7 breaks loops in the CPU "
                "interpreter; GPU runs are unaffected."
            )
        else:
            pip_install(["numpy<2.4"])
    READY.write_text(wanted)
    print(f"bootstrap: ready ({venv_python()})")
    return 0


def add_test_packages() -> int:
    """What only the repository's own tests need (pyproject.toml's `tests` extra: a notebook
    runner), into the .venv this script made; a learner's own .venv is told what to add."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        todo = missing(tomllib.load(f)["project"]["optional-dependencies"]["tests"])
    if todo and not made_here():
        print(
            f"bootstrap: the repository's tests need {', '.join(todo)}, which your own .venv "
            f"lacks: .venv/bin/python -m pip install {' '.join(todo)}",
            file=sys.stderr,
        )
        return 2
    if todo:
        pip_install(todo)
    TESTS_READY.touch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
