"""The repo's catalogue of attacks on its own grader (tests/attacks/<slug>/<name>.py): learner
files that try to score without solving the drill (forging the grader's results, patching or
tampering with it, computing behind the kernel's back, importing the solution, killing or
outliving the judge...). Each is graded like a learner's file, in a throwaway copy of the repo,
and this proves, for every one of them, that:

- the drill scores what the untouched stub scores (0), is not "passed", and the Gradescope
  export says 0 too;
- no process of the grade outlives the grader (none is left to rewrite the results), and the
  results stay put;
- no file of the checkout outside mine/ was changed, and no new one appeared outside mine/
  and .drills/ (tampering is undone);
- for an attack that edits files (TAMPERS = True), every stub (with a comment added, so
  that the judge grades them) graded afterwards in the same copy are still not started with 0
  points;
- for an attack that plants links to a path outside the checkout (CANARY = path), nothing was
  written there;
- for an attack that tries to make the grader read a file of the checkout for it
  (SHOWS_NOTHING_OF = path), no line of that file is in the grader's output or exports.

Each attack names the layer it attacks (LAYER), and is graded in the modes where that layer
differs:

- "kernels": the answer computed outside the kernels the judge reads and replays (numpy, torch
  ops, ctypes, hooks, grid functions, kernel bodies run as Python, recognising the grader);
- "channel": the runner's side of its channel to the judge (patched harness, forged replies,
  crashes);
- "processes": the judge's processes, or ones that outlive the grade;
- "files": the checkout's files (the solutions, the grader's own code and configuration).

--sandbox changes who a runner is and its limits, not what the judge runs or reads from it: an
attack on files or processes is graded in default mode and with --sandbox (runners as a user
of their own), the others in default mode, and the baseline (a kernel that does nothing, the
camouflage of every other attack) in every mode, as the reference is. One that edits files is
also graded without namespaces (DRILLS_NO_NAMESPACES=1), where the runner can write the
checkout, as on a machine that allows none: the integrity guard must undo it. LAYOUT =
"course" grades it in a copy without solutions/, as INSTRUCTORS.md tells instructors to hand out.
No attack stops at the judge's static reading: each is valid Python whose functions all run
(a test below), so each is graded end to end. Each attack's docstring says what it does and
what it scored on the grader it was first written against. An attack that is a small edit of the
reference says so as EDITS, as a negative does (drills/controls.py makes the file).
"""

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drills import catalog, controls
from drills.judge import source

ROOT = catalog.ROOT
ATTACKS = sorted((ROOT / "tests" / "attacks").glob("t*/*.py"))
STUB_SCORE = 0.0  # what an untouched stub scores (test_self_grading checks it)
NOT_COPIED = {  # what a grade does not read, and may be gigabytes: environments, caches
    ".git",
    ".venv",
    ".versions",
    ".whl",
    "reports",
    ".drills",
    ".grade",
    "__pycache__",
    ".pytest_cache",
    ".ruff_cache",
}
NOT_COPIED_PATHS = {Path("mine", ".backup"), Path("content", "img")}
NOT_COMPARED = {"__pycache__", ".drills", "reports", ".pytest_cache"}


def attack_meta(path: Path) -> dict:
    """ATTACK: the class of attack; TAMPERS: it edits files, so the stubs are graded again
    afterwards; CANARY: a path it tries to make the grader write; SHOWS_NOTHING_OF: a file it
    tries to make the grader show."""
    values = {"ATTACK": "", "LAYER": "", "TAMPERS": False, "CANARY": "", "SHOWS_NOTHING_OF": ""}
    values["LAYOUT"] = ""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) in values:
            values[node.targets[0].id] = ast.literal_eval(node.value)
    return values


def copy_repo(destination: Path, layout: str = "") -> Path:
    left_out = NOT_COPIED_PATHS | ({Path("solutions")} if layout == "course" else set())

    def ignore(folder: str, names: list[str]) -> list[str]:
        here = Path(folder).relative_to(ROOT)
        return [n for n in names if n in NOT_COPIED or here / n in left_out]

    shutil.copytree(ROOT, destination, ignore=ignore)
    return destination


def distinctive_lines(path: Path) -> list[str]:
    """The lines of a file long enough to be its own (no blank line or lone bracket)."""
    return [line.strip() for line in path.read_text().splitlines() if len(line.strip()) >= 30]


def fingerprint(root: Path) -> dict[str, str]:
    """sha256 of every file that grading must leave alone (caches and learner state aside)."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix != ".pyc"
        and not NOT_COMPARED.intersection(p.relative_to(root).parts)
    }


# As root, a sandboxed grade runs in a PID namespace of its own: whatever it kills, it cannot
# reach a process of the machine's.
OWN_PIDS = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"]

# The grader runs under a subreaper, to which whatever the grade leaves running is re-parented
# when the grader exits: it names each such process (and kills it), where sleeping a while
# would only catch one that acts soon.
UNDER_A_SUBREAPER = """
import os, subprocess, sys
from drills import processes
processes.become_subreaper()
code = subprocess.call(sys.argv[1:])
while True:  # the zombies of what ended with the grader
    try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0:
            break
    except ChildProcessError:
        break
def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\\0", b" ").decode(errors="replace")
    except OSError:
        return "?"
left = {pid: command_line(pid) for pid in processes.descendants()}
processes.kill_descendants()
if left:
    print(f"{OUTLIVED} {left}", file=sys.stderr)
sys.exit(code)
"""
OUTLIVED = "processes outlived the grader:"


def grade(repo: Path, *args: str, unconfined: bool = False) -> subprocess.CompletedProcess:
    alone = OWN_PIDS if "--sandbox" in args and os.geteuid() == 0 else []
    watched = [sys.executable, "-c", f"OUTLIVED = {OUTLIVED!r}\n{UNDER_A_SUBREAPER}"]
    return subprocess.run(
        [*alone, *watched, sys.executable, "grader.py", *args, "--time-limit", "90"],
        cwd=repo,
        env=os.environ | {"NO_COLOR": "1", "DRILLS_NO_NAMESPACES": "1" if unconfined else "0"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_process_left_running_by_a_grade_is_named(tmp_path):
    """The watch that replaces sleeping after each grade: a daemon, detached twice over."""
    done = subprocess.run(
        [sys.executable, "-c", f"OUTLIVED = {OUTLIVED!r}\n{UNDER_A_SUBREAPER}"]
        + ["sh", "-c", "(setsid sleep 60 &) ; exit 3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # (named by its command line, which may still be sh's or setsid's this soon)
    assert done.returncode == 3 and OUTLIVED in done.stderr, done.stderr


def open_to_nobody(path: Path) -> None:
    """Let --sandbox's unprivileged runners through the folders above `path`, and through
    those above this Python's environment (pytest makes its temporary folders for their owner
    only, and a checkout may lie in one): an instructor's machine needs the same."""
    for folder in {path, *path.parents, Path(sys.prefix), *Path(sys.prefix).parents}:
        if folder.stat().st_mode & 0o011 != 0o011:
            folder.chmod(folder.stat().st_mode | 0o011)


# where --sandbox (another user, limits) and the namespaces stand in the attack's way
LAYERS = {"kernels": [], "channel": [], "processes": ["sandbox"], "files": ["sandbox"]}
BASELINE = "empty_kernel"


def modes(path: Path) -> list[str]:
    meta = attack_meta(path)
    if path.stem == BASELINE:
        return ["default", "sandbox", "unconfined"]
    return ["default", *LAYERS[meta["LAYER"]], *(["unconfined"] if meta["TAMPERS"] else [])]


def test_every_attack_names_its_layer_and_passes_the_static_reading(tmp_path):
    for path in ATTACKS:
        meta = attack_meta(path)
        assert meta["LAYER"] in LAYERS, f"{path.name}: LAYER {meta['LAYER']!r}"
        learner = controls.standalone(path, tmp_path)  # its EDITS must still apply
        read = source.read(learner, path.name)  # raises where the file cannot be read
        assert not any(map(read.raises_not_started, read.top_level)), path.name


MODES = [(path, mode) for path in ATTACKS for mode in modes(path)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "mode"), MODES, ids=[f"{p.parent.name}/{p.stem}-{m}" for p, m in MODES]
)
def test_attack_scores_nothing(path, mode, tmp_path):
    meta = attack_meta(path)
    assert meta["ATTACK"] and ast.get_docstring(ast.parse(path.read_text())), path.name
    drill = catalog.find(path.parent.name)
    repo = copy_repo(tmp_path / "repo", meta["LAYOUT"])
    impl, out = tmp_path / "impl", tmp_path / "out"
    impl.mkdir()
    out.mkdir()
    shutil.copy(controls.standalone(path, tmp_path / "attack"), impl / f"{drill.slug}.py")
    if mode == "sandbox":
        open_to_nobody(repo)
    if meta["CANARY"]:
        Path(meta["CANARY"]).unlink(missing_ok=True)
    before = fingerprint(repo)
    native, gradescope = out / "result.json", out / "gradescope.json"

    done = grade(
        repo,
        drill.id,
        "--impl",
        str(impl),
        "--json",
        str(native),
        "--format",
        "gradescope",
        str(gradescope),
        *(["--sandbox"] if mode == "sandbox" else []),
        unconfined=mode == "unconfined",
    )
    shown = f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert native.exists() and gradescope.exists(), f"no results written: {shown}"
    written = {p: p.read_bytes() for p in (native, gradescope)}
    result = next(d for d in json.loads(written[native])["drills"] if d["id"] == drill.id)
    assert result["score"] == STUB_SCORE, f"{meta['ATTACK']} scored {result['score']}: {shown}"
    assert result["status"] != "passed", shown
    assert json.loads(written[gradescope])["score"] == STUB_SCORE, shown

    if meta["CANARY"]:
        assert not os.path.lexists(meta["CANARY"]), f"the grader wrote {meta['CANARY']}"
    if meta["SHOWS_NOTHING_OF"]:
        shown_lines = distinctive_lines(repo / meta["SHOWS_NOTHING_OF"])
        everything = done.stdout + done.stderr + "".join(b.decode() for b in written.values())
        leaked = [line for line in shown_lines if line in everything]
        assert not leaked, f"the grader showed {meta['SHOWS_NOTHING_OF']}: {leaked[:3]}"

    assert OUTLIVED not in done.stderr, done.stderr[-3000:]
    assert {p: p.read_bytes() for p in written} == written, "the results changed after exit"
    after = fingerprint(repo)
    changed = sorted(p for p in before if after.get(p) != before[p] and not p.startswith("mine/"))
    added = sorted(p for p in after.keys() - before.keys() if not p.startswith("mine/"))
    assert not changed and not added, f"changed: {changed}, new: {added}"

    if meta["TAMPERS"]:
        # each stub with a comment added, so that it reaches the judge the attack may have
        # changed (the stub itself, byte for byte, is decided without one)
        edited = out / "stubs"
        edited.mkdir()
        for d in catalog.DRILLS:
            text = (repo / "drills" / "stubs" / f"{d.slug}.py").read_text()
            (edited / f"{d.slug}.py").write_text(text + "\n# graded after the attack\n")
        stubs = out / "stubs.json"
        done = grade(
            repo, "--impl", str(edited), "--json", str(stubs), unconfined=mode == "unconfined"
        )
        assert stubs.exists(), f"no results for the stubs: {done.stdout[-3000:]}"
        for d in json.loads(stubs.read_text())["drills"]:
            assert (d["status"], d["score"]) == ("not_started", 0), f"stub {d['id']}: {d}"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sandbox", "unconfined"])
def test_the_reference_keeps_full_marks_in_every_mode(mode, tmp_path):
    # the other side of the attacks' zeros: the modes that confine runners differently take
    # nothing from a right kernel (default mode is every positive's and reference's grade)
    repo = copy_repo(tmp_path / "repo")
    if mode == "sandbox":
        open_to_nobody(repo)
    native = tmp_path / "result.json"
    done = grade(
        repo,
        "t1",
        "--impl",
        "solutions",
        "--json",
        str(native),
        *(["--sandbox"] if mode == "sandbox" else []),
        unconfined=mode == "unconfined",
    )
    assert native.exists(), f"exit {done.returncode}: {done.stdout[-3000:]} {done.stderr[-3000:]}"
    (result,) = json.loads(native.read_text())["drills"]
    assert (result["status"], result["score"]) == ("passed", 100), done.stdout[-3000:]
