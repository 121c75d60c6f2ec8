"""`make versions`: grade the references and the repository's positives (correct kernels written
differently) on each triton the drills support, on the CPU interpreter, learner side and judge
side alike, and print one row per version and one column per drill.

Each version gets an environment of its own, .versions/triton-X.Y.Z: a venv whose site-packages
holds that triton (and numpy < 2.4 before 3.7, whose interpreter loops broke on numpy 2.4), with
a .pth file that adds this Python's packages after its own (drills/bootstrap.py's layered_venv),
so torch, pytest and the rest are .venv's and triton is the chosen one. The grader runs under
that venv's python, and so does every process it starts: runners and executors are started with
sys.executable. (PYTHONPATH would not do: runners start with `python -E`, which ignores it, so
learner code would run on .venv's triton whatever the row said.) pip keeps the wheels it
downloads in its cache, and a version's folder is made once.

Positives written in a style that one triton removed or another introduced say so, with
`TRITON_BEFORE = "3.9"` (block pointers) or `TRITON_FROM = "3.9"` (chained comparisons): they are
graded as positives on the versions they are meant for and, on the others, must fail with a
message that names the version where the style changed. Negatives whose mistake looks different
from one version to the next say so with `TRITON_CHANGES_AT = "3.9"`: each version grades them
too, and they must lose their checks with their words on every one.
"""

import ast
import contextlib
import dataclasses
import fcntl
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from drills import bootstrap, catalog, controls
from drills.runtime import major_minor

# 3.4 and 3.5 are not: their interpreter launches a kernel without its run() (kernel[grid]
# makes the executor itself), so a runner cannot write the launch down instead of running it
SUPPORTED = ("3.6.0", "3.7.1", "3.8.0", "3.9.0")
NEWEST = SUPPORTED[-1]
FOLDER = catalog.ROOT / ".versions"
POSITIVES = controls.POSITIVES

# A T1 file whose add says which triton it imported: graded, it shows the runner's version.
SAYS_ITS_TRITON = """
import triton


def add(x, y, out=None):
    raise RuntimeError(f"this runner imports triton {triton.__version__}")
"""


def tested_ranges() -> dict[str, str]:
    """pyproject.toml's ranges for torch and triton ("torch": ">=2.11,<2.15"): what the
    drills are tested on, stated there alone."""
    dependencies = bootstrap.requirements()
    pinned = (re.fullmatch(r"(torch|triton)(>=[\d.]+,<[\d.]+)", d) for d in dependencies)
    return {m[1]: m[2] for m in pinned if m}


def in_range(version: str, spec: str) -> bool:
    if not re.match(r"\d+\.\d+", version):  # "not installed"
        return False
    low, high = re.fullmatch(r">=([\d.]+),<([\d.]+)", spec).groups()
    return major_minor(low) <= major_minor(version) < major_minor(high)


def unsupported(found: dict[str, str], language: str = "en") -> str:
    """One line for a torch or triton outside the tested range, whichever environment the grader
    runs in (a learner's own venv too), naming what is installed and the command that installs
    versions in range; "" when both are in it. Outside it a verdict would blame the learner's
    code for the environment: triton 3.5 runs no kernel the judge can see, so the reference
    itself scored 0."""
    ranges = tested_ranges()
    outside = [
        f"{name} {found[name]}" for name, spec in ranges.items() if not in_range(found[name], spec)
    ]
    if not outside:
        return ""
    wanted = " ".join(f"'{name}{spec}'" for name, spec in ranges.items())
    tested = ", ".join(n + s for n, s in ranges.items())
    install = f"{sys.executable} -m pip install {wanted}"
    if language == "zh":
        return (
            f"{'、'.join(outside)} 不在这些练习测试过的版本范围内（{tested}），所以什么也没有评分："
            f"用 {install} 安装测试过的版本"
        )
    return (
        f"{' and '.join(outside)} {'is' if len(outside) == 1 else 'are'} outside the versions the "
        f"drills are tested on ({tested}), so nothing was graded: install tested ones with "
        f"{install}"
    )


def uncompiled(names: tuple[str, ...] = ("torch", "triton")) -> list[Path]:
    """The folders of these packages that hold no compiled bytecode (no .pyc of their
    __init__.py where Python looks for it): pip writes it at install unless told not to, as
    PYTHONDONTWRITEBYTECODE tells it in many container images, and the judge's processes,
    which run with -B, never write it. Without it every grade compiles torch's Python again."""
    folders = []
    for name in names:
        spec = importlib.util.find_spec(name)
        source = spec.origin if spec and spec.origin and spec.origin.endswith(".py") else None
        if source and not os.path.exists(importlib.util.cache_from_source(source)):
            folders.append(Path(source).parent)
    return folders


def uncompiled_note(folders: list[Path], language: str = "en") -> str:
    """One line for packages without bytecode (uncompiled): the cost, and the command that
    compiles them once."""
    names = [folder.name for folder in folders]
    command = f"{sys.executable} -m compileall -q " + " ".join(str(f) for f in folders)
    if language == "zh":
        return (
            f"{'、'.join(names)} 没有编译好的字节码（安装时设置了 PYTHONDONTWRITEBYTECODE，"
            "许多容器镜像都这样设），所以每次评分都要重新编译它们的 Python 代码：在一台 H100 "
            f"主机上，导入 torch 因此多花约 3 秒。编译一次就够了：{command}"
        )
    return (
        f"{' and '.join(names)} {'has' if len(names) == 1 else 'have'} no compiled bytecode "
        "(installed with PYTHONDONTWRITEBYTECODE set, as many container images are), so every "
        "grade compiles their Python again: about 3 s more for torch's import on an H100 host. "
        f"Compile it once: {command}"
    )


def environment(version: str) -> str:
    """The python of .versions/triton-<version>, made the first time (one maker at a time:
    parallel tests may ask together)."""
    folder = FOLDER / f"triton-{version}"
    FOLDER.mkdir(exist_ok=True)
    with open(FOLDER / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".ready").exists():
            print(f"triton {version}: installing it into {folder.name}/ ...", file=sys.stderr)
            site = bootstrap.layered_venv(folder)
            packages = [f"triton=={version}"] + (
                ["numpy<2.4"] if major_minor(version) < (3, 7) else []
            )
            subprocess.run(
                [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade"]
                + ["--target", str(site), *packages],
                check=True,
            )
            (folder / ".ready").write_text(version + "\n")
    return bootstrap.venv_python(folder)


def style_versions(path: Path) -> dict[str, str]:
    """A positive's TRITON_FROM (the first triton that runs its style) and TRITON_BEFORE (the
    first that no longer does), those it sets."""
    said = {}
    for node in ast.parse(path.read_text()).body:
        name = getattr(node.targets[0], "id", "") if isinstance(node, ast.Assign) else ""
        if name in ("TRITON_FROM", "TRITON_BEFORE"):
            said[name] = str(ast.literal_eval(node.value))
    return said


def meant_for(path: Path, version: str) -> bool:
    """Whether `version` runs this positive's style."""
    said = style_versions(path)
    after_start = "TRITON_FROM" not in said or major_minor(version) >= major_minor(
        said["TRITON_FROM"]
    )
    before_end = "TRITON_BEFORE" not in said or major_minor(version) < major_minor(
        said["TRITON_BEFORE"]
    )
    return after_start and before_end


def version_named(path: Path, message: str) -> bool:
    """Whether a message tells a positive's style apart by the version where it changed."""
    return any(f"triton {v}" in message for v in style_versions(path).values())


def negative_meta(path: Path) -> dict:
    """A negative's declarations: LOSES, the ids of the checks it must lose; SAYS, words its
    first lost check must contain; SAYS_ON_GPU, those words on a GPU where they differ (a GPU
    shows some mistakes another way: a read past an input is wrong values there, where the
    interpreter sees the read); MAX_SCORE, the most it may score in all; RUNTIMES, where it is
    caught; TRITON_CHANGES_AT, the version where what a learner sees of its mistake changes."""
    values = {
        "MAX_SCORE": 100,
        "RUNTIMES": ["interpreter", "gpu"],
        "TRITON_CHANGES_AT": None,
        "SAYS_ON_GPU": None,
    }
    for node in ast.parse(path.read_text()).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and target.id in values | {"LOSES": 0, "SAYS": 0}:
            values[target.id] = ast.literal_eval(node.value)
    return values


def caught(path: Path, checks: dict) -> bool:
    """Whether a negative, graded, lost each check it names, with its words in the first
    (`checks`: id -> (score, message))."""
    meta = negative_meta(path)
    lost = [checks.get(id, (1, ""))[0] == 0 for id in meta["LOSES"]]
    first = checks.get(meta["LOSES"][0], (0, ""))[1]
    return all(lost) and meta["SAYS"] in first


def grade_drill(drill_id: str) -> dict:
    """Run inside a version's environment: the reference's grade, and each positive's."""
    from drills import grading

    drill = catalog.find(drill_id)
    reference = grading.grade(drill, "solutions", "interpreter")
    positives = {}
    for path in sorted((POSITIVES / drill.slug).glob("*.py")):
        with tempfile.TemporaryDirectory() as folder:
            right = controls.standalone(path, Path(folder))
            result = grading.grade(drill, str(right), "interpreter")
        lost = [c.message for c in result.checks if c.scored and c.score < c.max_score]
        positives[path.stem] = {"score": result.score, "first_lost": (lost or [""])[0][:2000]}
    changing = {}
    for path in sorted((controls.NEGATIVES / drill.slug).glob("*.py")):
        if negative_meta(path)["TRITON_CHANGES_AT"]:
            with tempfile.TemporaryDirectory() as folder:
                wrong = controls.standalone(path, Path(folder))
                result = grading.grade(drill, str(wrong), "interpreter")
            checks = {c.id: (c.score, c.message) for c in result.checks}
            changing[path.stem] = caught(path, checks)
    return {"reference": reference.score, "positives": positives, "negatives": changing}


def runner_triton() -> str:
    """Run inside a version's environment: the triton a runner imports, as a graded file says."""
    from drills import grading

    t1 = catalog.find("t1")
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "t1_add.py").write_text(SAYS_ITS_TRITON)
        result = grading.grade(t1, folder, "interpreter", only_checks=["adds"])
    message = next(c.message for c in result.checks if c.id == "adds")
    seen = re.search(r"this runner imports triton (\d+\.\d+\.\d+)", message)
    return seen.group(1) if seen else "?"


def inside(version: str, *args: str) -> dict:
    """Run `python -m drills.versions --inside ARGS` in the version's environment."""
    done = subprocess.run(
        [environment(version), "-m", "drills.versions", "--inside", *args],
        cwd=catalog.ROOT,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"TRITON_INTERPRET": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout)[-600:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclasses.dataclass
class Cell:
    """One drill on one triton: the reference's score, the positives meant for this version
    that got 100, and the others whose message names the version their style needs."""

    reference: float = 0.0
    meant: tuple[int, int] = (0, 0)
    told: tuple[int, int] = (0, 0)
    caught: tuple[int, int] = (0, 0)  # the negatives whose mistake changes between versions
    error: str = ""

    @classmethod
    def of(cls, version: str, drill: catalog.Drill, graded: dict) -> "Cell":
        if "error" in graded:
            return cls(error=graded["error"])
        meant, told = [], []
        for name, result in graded["positives"].items():
            path = POSITIVES / drill.slug / f"{name}.py"
            if meant_for(path, version):
                meant.append(result["score"] == 100)
            else:
                told.append(result["score"] < 100 and version_named(path, result["first_lost"]))
        caught = list(graded["negatives"].values())
        return cls(
            graded["reference"],
            (sum(meant), len(meant)),
            (sum(told), len(told)),
            (sum(caught), len(caught)),
        )

    @property
    def ok(self) -> bool:
        every = all(done == of for done, of in (self.meant, self.told, self.caught))
        return not self.error and self.reference == 100 and every

    def __str__(self) -> str:
        if self.error:
            return "error"
        text = f"{self.reference:.0f} · {self.meant[0]}/{self.meant[1]}"
        text += f" (+{self.told[0]}/{self.told[1]} told)" if self.told[1] else ""
        return text + (f" · {self.caught[0]}/{self.caught[1]} caught" if self.caught[1] else "")


def row(version: str) -> tuple[list[str], bool]:
    """A version's row: its runner's triton, as a graded file saw it, and a cell per drill."""
    workers = max(1, min(len(catalog.DRILLS), os.cpu_count() or 1))
    environment(version)  # installed once, before the drills' processes ask for it
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending = {pool.submit(inside, version, "grade", d.id): d for d in catalog.DRILLS}
        graded = {}
        for done in as_completed(pending):  # each drill as it ends: minutes apiece
            drill = pending[done]
            graded[drill.id] = done.result()
            cell = Cell.of(version, drill, graded[drill.id])
            seconds = time.monotonic() - started
            print(f"triton {version}: {drill.id} {cell} ({seconds:.0f} s)", file=sys.stderr)
    cells = [Cell.of(version, d, graded[d.id]) for d in catalog.DRILLS]
    for d, c in zip(catalog.DRILLS, cells, strict=True):
        if c.error:
            print(f"triton {version}, {d.id}: {c.error}", file=sys.stderr)
    seen = inside(version, "runner").get("triton", "?")
    return [version, seen, *map(str, cells)], seen == version and all(c.ok for c in cells)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--inside"]:
        what = args[1]
        answer = grade_drill(args[2]) if what == "grade" else {"triton": runner_triton()}
        print(json.dumps(answer))
        return 0
    versions = args or SUPPORTED
    names = [f"{d.id} {d.title}" for d in catalog.DRILLS]
    print(
        "reference score · positives at 100/positives (+ positives of other versions told why)"
        " · negatives whose mistake changes between versions caught/negatives"
    )
    print(" | ".join(["triton", "runner's", *names]))
    failures = 0
    for version in versions:
        try:
            cells, ok = row(version)
        except subprocess.CalledProcessError:
            cells, ok = [version, "could not be installed here"], False
        failures += not ok
        print(" | ".join(cells) + ("" if ok else "   <- FAILED"), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
