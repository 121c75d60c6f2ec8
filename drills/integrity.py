"""The judge's own files, and proof that a learner's code left them alone.

A runner runs as the grader's user unless the grader runs with `--sandbox` as root, so the
learner's code could edit the harness or the suites (drills/, tests/, the pytest
configuration) or drop a .pth file into site-packages, and every judge started afterwards
would run that code. `Guard` remembers what those files are when grading starts, before any
learner code runs, and after every judge checks them: a changed or deleted file of the judge's
is restored and an added one removed (both kept in .drills/quarantine/, in case it was a person
editing the repository, not a learner's code), and the drill that was running is told it
scores nothing. So is a module added to a folder on Python's path (a sitecustomize.py), which
every later Python would run: it is moved aside too. Where namespaces confine the learner's
processes, none of these can be written at all (drills.confine); this is what stands in the
way where they cannot. It reads without following links and opens regular files only (a FIFO would
block it), and a tree flooded with entries is put aside whole and rebuilt. Byte-code caches are not the judge's to vouch for: a new or changed one is deleted, which
costs a recompile and nothing else.
"""

import contextlib
import os
import shutil
import site
import stat
import sys
import time
from pathlib import Path

from drills import catalog

# The judge: its package, its suites, and the files next to them that python or pytest read.
TRUSTED_TREES = ("drills", "tests")
# Far more entries than the trees hold: a tree past this is read no further and counts as
# changed (a flood of files would otherwise make each check take longer than a drill).
MAX_ENTRIES = 20_000
FLOODED = ("flooded", b"")
MAX_BYTES = 16 << 20  # a larger file (a learner's data at the top) is known by its size and times


class NotRegular(Exception):
    """A path that is a link, a FIFO, a device or a folder where a regular file was expected."""


def read_regular(path: Path | str, limit: int | None = None) -> bytes:
    """The bytes of a regular file, never through a symbolic link and never blocking (a FIFO
    or a device is refused before anything is read); NotRegular says what it is instead."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise NotRegular("a symbolic link" if os.path.islink(path) else e.strerror) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (limit is not None and info.st_size > limit):
        os.close(fd)
        raise NotRegular(
            "not a regular file" if not stat.S_ISREG(info.st_mode) else f"larger than {limit} bytes"
        )
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _entry(path: Path) -> tuple[str, bytes]:
    """What the guard remembers of a path: ("file", its bytes), ("link", its target) or
    ("other", what it is)."""
    if path.is_symlink():
        return "link", os.fsencode(os.readlink(path))
    try:
        return "file", read_regular(path, MAX_BYTES)
    except NotRegular as e:
        return "other", f"{e}: {_stat(str(path))}".encode()


def _trusted_files(root: Path) -> dict[str, tuple[str, bytes]]:
    """The top-level files (pyproject.toml, grader.py, ...) and every entry of the trusted
    trees, by relative path, read without following a link."""
    files = {
        entry.name: _entry(entry)
        for entry in root.iterdir()
        if entry.is_symlink() or not entry.is_dir() or entry.name in TRUSTED_TREES
    }
    for tree in TRUSTED_TREES:
        if files.get(tree, ("", b""))[0] != "other":  # a link, or missing: nothing to walk
            continue
        files.pop(tree)  # a real folder: its entries stand for it
        seen = 0
        for folder, dirs, names in os.walk(root / tree):  # links to folders are not followed
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            seen += len(dirs) + len(names)
            if seen > MAX_ENTRIES:
                files[tree] = FLOODED
                break
            here = Path(folder)
            links = [d for d in dirs if (here / d).is_symlink()]
            for name in [*names, *links]:
                files[str((here / name).relative_to(root))] = _entry(here / name)
    return files


def _caches(root: Path) -> dict[Path, int]:
    return {
        p: p.stat().st_ctime_ns
        for tree in TRUSTED_TREES
        for p in (root / tree).rglob("__pycache__/*")
        if p.is_file()
    }


def _environment(root: Path) -> dict[str, tuple]:
    """The source files of every module loaded here (the judge loads the same ones), the .pth
    files on sys.path (they run in every later Python), and what each sys.path folder and the
    user's site folder hold: a module added there (a sitecustomize.py, a usercustomize.py, a
    package that shadows another) is imported by later Pythons. Not byte-code: every Python
    that imports a module with a stale cache rewrites it, runners included. Not the
    repository: the trusted files cover what of it matters."""
    paths = {
        os.path.abspath(module.__file__)
        for module in list(sys.modules.values())
        if isinstance(getattr(module, "__file__", None), str)
    }
    for folder in [*sys.path, site.getusersitepackages()]:
        if folder and os.path.isdir(folder):
            paths.update(str(p) for p in Path(folder).glob("*.pth"))
            paths.add(os.path.join(os.path.abspath(folder), "*"))  # the names in it
    inside = str(root.resolve()) + os.sep
    return {p: _stat(p) for p in paths if not (p + os.sep).startswith(inside)}


def _stat(path: str) -> tuple:
    if path.endswith(os.sep + "*"):
        with contextlib.suppress(OSError):
            return tuple(sorted(p.name for p in Path(path).parent.iterdir()))
        return ()
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
        for path, then in self.environment.items():
            now = _stat(path)
            if now != then:
                changed.append(f"{path} (in the Python environment)")
            if path.endswith(os.sep + "*"):  # what was added there goes aside
                for name in sorted(set(now) - set(then)):
                    added = Path(path).parent / name
                    self._quarantine(added, Path("python-environment", *added.parts[1:]))
        return changed

    def _restore_files(self) -> list[str]:
        """Move every changed or new entry aside and write back the files as they were; in
        path order, so that a folder replaced by a link is put aside before its files return."""
        now = _trusted_files(self.root)
        flooded = tuple(f"{t}/" for t in TRUSTED_TREES if now.get(t) == FLOODED)
        changed = sorted(
            n
            for n in self.files.keys() | now.keys()
            if now.get(n) != self.files.get(n) or n.startswith(flooded)
        )
        for name in changed:
            self._quarantine(self.root / name, Path(name))
            kind, content = self.files.get(name, ("", b""))
            if kind == "file":
                path = self.root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
                with os.fdopen(os.open(path, flags, 0o644), "wb") as f:
                    f.write(content)
        return changed

    def _quarantine(self, path: Path, kept_as: Path) -> None:
        """Move a changed or added file out of the judge's way (or a later Python's), without
        losing it: to `kept_as` in this check's quarantine folder."""
        if not (path.exists() or path.is_symlink()):
            return
        kept = self.root / ".drills" / "quarantine" / time.strftime("%Y%m%d-%H%M%S") / kept_as
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, kept)

    def _drop_new_caches(self) -> None:
        for path, ctime in _caches(self.root).items():
            if self.caches.get(path) != ctime:
                path.unlink(missing_ok=True)
