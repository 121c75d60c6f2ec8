"""Build the Gradescope autograder: `python course/gradescope/build.py [DRILL ...] [--out ZIP]`.

The zip holds, at its root where Gradescope looks for them, setup.sh and run_autograder, and
beside them what grading needs: grader.py, pyproject.toml, drills/ and the graded suites
(tests/test_tN_*.py). Not solutions/, not mine/, not the lessons. DRILL ...: the drills this
assignment grades (default: all), written to DRILLS for run_autograder. --sandbox-accept-less:
grade even where Gradescope's image cannot give every protection of --sandbox (written to
SANDBOX_FLAGS; by default run_autograder refuses to grade there, and says which one is missing).
"""

import argparse
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from drills import catalog  # noqa: E402 - found through sys.path above

EXECUTABLE = 0o755 << 16  # zip keeps a file's mode in the high bits of its external attributes
READABLE = 0o644 << 16


def grader_files() -> list[Path]:
    """The files grading reads, relative to the repository."""
    files = [Path("grader.py"), Path("pyproject.toml")]
    files += sorted(
        p.relative_to(ROOT)
        for p in (ROOT / "drills").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    files += [d.test_file.relative_to(ROOT) for d in catalog.DRILLS]
    return files


def build(out: Path, drills: list[catalog.Drill], accept_less: bool = False) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bundle:
        for script in ("setup.sh", "run_autograder"):
            _add(bundle, script, (HERE / script).read_bytes(), EXECUTABLE)
        for path in grader_files():
            _add(bundle, str(path), (ROOT / path).read_bytes(), READABLE)
        if drills != catalog.DRILLS:
            _add(bundle, "DRILLS", (" ".join(d.id for d in drills) + "\n").encode(), READABLE)
        if accept_less:
            _add(bundle, "SANDBOX_FLAGS", b"--sandbox-accept-less\n", READABLE)


def _add(bundle: zipfile.ZipFile, name: str, data: bytes, mode: int) -> None:
    info = zipfile.ZipInfo(name)
    info.external_attr = mode
    info.compress_type = zipfile.ZIP_DEFLATED
    bundle.writestr(info, data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drills", nargs="*", metavar="DRILL", help="default: every drill")
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE / "autograder.zip",
        help="where to write the zip (default: course/gradescope/autograder.zip)",
    )
    parser.add_argument(
        "--sandbox-accept-less",
        action="store_true",
        help="grade where the image cannot give every protection of --sandbox (default: refuse)",
    )
    args = parser.parse_args(argv)
    try:
        drills = [catalog.find(name) for name in args.drills] or catalog.DRILLS
    except KeyError as e:
        parser.error(e.args[0])
    build(args.out, drills, args.sandbox_accept_less)
    print(f"{args.out}: upload it as the assignment's autograder (Configure Autograder, zip file)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
