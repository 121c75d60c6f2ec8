"""Make `.venv`, the environment every make target runs in (standard library only).

Run by the Makefile on first use, and again whenever pyproject.toml changes.

- If the Python that runs this script can already import torch and triton (a GPU machine, often
  offline), the venv reuses that installation through a .pth file and installs only what is
  missing, so nothing large is downloaded again.
- Otherwise the venv is a plain one and pip installs every dependency into it.
"""

import json
import os
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
READY = VENV / ".ready"


def requirements() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]["dependencies"]


def has_torch_and_triton(python: str) -> bool:
    probe = subprocess.run([python, "-c", "import torch, triton"], capture_output=True, check=False)
    return probe.returncode == 0


def venv_python() -> str:
    return str(VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))


def make_venv(reuse: bool) -> None:
    if VENV.exists():
        shutil.rmtree(VENV)
    # A venv made from inside another venv cannot see that venv's packages with
    # --system-site-packages (it sees only the base interpreter's), so reuse goes through a .pth.
    venv.EnvBuilder(with_pip=not reuse).create(VENV)
    if reuse:
        site = subprocess.check_output(
            [venv_python(), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            text=True,
        ).strip()
        parent_paths = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
        Path(site, "_drills_reuse_parent.pth").write_text("\n".join(parent_paths) + "\n")


def missing(names: list[str]) -> list[str]:
    script = (
        "import importlib.metadata as m, json, sys\n"
        "out = []\n"
        "for n in json.loads(sys.argv[1]):\n"
        "    try: m.version(n)\n"
        "    except m.PackageNotFoundError: out.append(n)\n"
        "print(json.dumps(out))\n"
    )
    out = subprocess.check_output([venv_python(), "-c", script, json.dumps(names)], text=True)
    return json.loads(out)


def pip_install(packages: list[str]) -> None:
    print(f"bootstrap: installing {' '.join(packages)}", flush=True)
    subprocess.check_call([venv_python(), "-m", "pip", "install", "--quiet", *packages])


def version_of(name: str) -> tuple[int, ...]:
    out = subprocess.check_output(
        [venv_python(), "-c", f"import importlib.metadata as m; print(m.version('{name}'))"],
        text=True,
    )
    return tuple(int(p) for p in out.strip().split("+")[0].split(".")[:2] if p.isdigit())


def main() -> int:
    wanted = json.dumps(requirements())
    if Path(venv_python()).exists() and READY.exists() and READY.read_text() == wanted:
        READY.touch()  # pyproject.toml changed, but not its dependencies
        return 0
    reuse = has_torch_and_triton(sys.executable)
    where = f"reusing torch and triton from {sys.executable}" if reuse else "installing everything"
    print(f"bootstrap: making .venv ({where})", flush=True)
    make_venv(reuse)
    todo = missing(requirements())
    if todo:
        pip_install(todo)
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


if __name__ == "__main__":
    sys.exit(main())
