"""`make versions`: run the graded suites against the reference solutions, on the CPU
interpreter, once for each triton version the drills support.

Each version is installed (without its dependencies) into .versions/triton-X.Y.Z and put in
front of the environment's own triton with PYTHONPATH; torch's CPU path pins no triton, so one
torch serves them all. Versions before 3.7 get numpy < 2.4 beside them, because numpy 2.4 broke
their interpreter's loops.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from drills import catalog

SUPPORTED = ("3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0")
FOLDER = catalog.ROOT / ".versions"


def install(version: str) -> Path:
    target = FOLDER / f"triton-{version}"
    if not (target / "triton").exists():
        packages = [f"triton=={version}"]
        if tuple(int(p) for p in version.split(".")[:2]) < (3, 7):
            packages.append("numpy<2.4")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(target),
                *packages,
            ],
            check=True,
        )
    return target


def run_suites(target: Path) -> tuple[bool, str]:
    env = dict(os.environ, PYTHONPATH=str(target), TRITON_INTERPRET="1")
    suites = [str(d.test_file) for d in catalog.DRILLS]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--impl",
            "solutions",
            *suites,
        ],
        cwd=catalog.ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-300:]
    return done.returncode == 0, last


def main(argv: list[str] | None = None) -> int:
    versions = (sys.argv[1:] if argv is None else argv) or SUPPORTED
    failures = 0
    for version in versions:
        started = time.monotonic()
        try:
            target = install(version)
        except subprocess.CalledProcessError:
            print(f"triton {version}: could not be installed here", flush=True)
            failures += 1
            continue
        ok, summary = run_suites(target)
        failures += not ok
        print(
            f"triton {version}: {'ok' if ok else 'FAILED'} ({summary}; "
            f"{time.monotonic() - started:.0f} s)",
            flush=True,
        )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
