"""The judge's own files, and proof that a learner's code left them alone.

A runner runs as the grader's user unless the grader runs with `--sandbox` as root, so the
learner's code could edit the harness or the suites (drills/, tests/, the pytest
configuration) or drop a .pth file into site-packages, and every judge started afterwards
would run that code. `Guard` remembers what those files are when grading starts, before any
learner code runs, and after every judge checks them: a changed or deleted file of the judge's
is restored and an added one removed (both kept in .drills/quarantine/, in case it was a person
editing the repository, not a learner's code), and the drill that was running is told it
scores nothing. Byte-code caches are not the judge's to vouch for: a new or changed one is deleted, which
costs a recompile and nothing else.
"""

import os
import shutil
import sys
import time
from pathlib import Path

from drills import catalog

# The judge: its package, its suites, and the files next to them that python or pytest read.
TRUSTED_TREES = ("drills", "tests")


def _trusted_files(root: Path) -> dict[str, bytes | None]:
    files: dict[str, bytes | None] = {}
    for entry in root.iterdir():
        if entry.is_file() or entry.is_symlink():
            files[entry.name] = None  # top-level: only which files exist (pytest.ini, conftest.py)
    for tree in TRUSTED_TREES:
        for path in sorted((root / tree).rglob("*")):
            if "__pycache__" in path.parts or not (path.is_file() or path.is_symlink()):
                continue
            files[str(path.relative_to(root))] = path.read_bytes()
    return files


def _caches(root: Path) -> dict[Path, int]:
    return {
        p: p.stat().st_ctime_ns
        for tree in TRUSTED_TREES
        for p in (root / tree).rglob("__pycache__/*")
        if p.is_file()
    }


def _environment(root: Path) -> dict[str, tuple]:
    """The source files of every module loaded here (the judge loads the same ones), and the
    .pth files on sys.path (they run in every later Python). Not byte-code: every Python that
    imports a module with a stale cache rewrites it, runners included. Not the repository:
    the trusted files cover what of it matters."""
    paths = {
        os.path.abspath(module.__file__)
        for module in list(sys.modules.values())
        if isinstance(getattr(module, "__file__", None), str)
    }
    for folder in sys.path:
        if folder and os.path.isdir(folder):
            paths.update(str(p) for p in Path(folder).glob("*.pth"))
            paths.add(os.path.join(os.path.abspath(folder), "*.pth"))  # the set of them
    inside = str(root.resolve()) + os.sep
    return {p: _stat(p) for p in paths if not (p + os.sep).startswith(inside)}


def _stat(path: str) -> tuple:
    if path.endswith("*.pth"):
        return tuple(sorted(p.name for p in Path(path).parent.glob("*.pth")))
    try:
        st = os.stat(path)
    except OSError:
        return ()
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Guard:
    def __init__(self, root: Path = catalog.ROOT):
        self.root = root
        self.files = _trusted_files(root)
        self.caches = _caches(root)
        self.environment = _environment(root)

    def check(self) -> list[str]:
        """What changed since grading started, after putting the judge's files back."""
        changed = self._restore_files()
        self._drop_new_caches()
        changed += [
            f"{path} (in the Python environment)"
            for path, stat in self.environment.items()
            if _stat(path) != stat
        ]
        return changed

    def _restore_files(self) -> list[str]:
        now = _trusted_files(self.root)
        changed = []
        for name, content in self.files.items():
            if now.get(name, b"missing") != content and (content is not None or name not in now):
                changed.append(name)
                if content is not None:
                    self._quarantine(name)
                    path = self.root / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(content)
        for name in now.keys() - self.files.keys():
            changed.append(name)
            self._quarantine(name)
        return sorted(changed)

    def _quarantine(self, name: str) -> None:
        """Move a changed or added file out of the judge's way, without losing it."""
        path = self.root / name
        if not (path.exists() or path.is_symlink()):
            return
        kept = self.root / ".drills" / "quarantine" / time.strftime("%Y%m%d-%H%M%S") / name
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, kept)

    def _drop_new_caches(self) -> None:
        for path, ctime in _caches(self.root).items():
            if self.caches.get(path) != ctime:
                path.unlink(missing_ok=True)
