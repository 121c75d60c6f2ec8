"""Importing a drill file into this process: for the benchmark and the repo's own tests only.

Grading never does this (the judge runs learner code in a runner, see drills.judge.remote). The
benchmark does, on purpose: it times the learner's kernel, trusted or not, beside the reference
and torch, and a time is never a grade.
"""

import importlib.util
import sys
import traceback
from pathlib import Path

from drills import catalog


class ImplImportError(Exception):
    """The file could not be imported (syntax error, bad import, missing file)."""


_loaded: dict[Path, object] = {}


def load(path: Path):
    """Import a drill file by path; any failure becomes an ImplImportError a learner can read."""
    if path in _loaded:
        return _loaded[path]
    if not path.exists():
        raise ImplImportError(f"{_show(path)} does not exist")
    spec = importlib.util.spec_from_file_location(f"drill_impl_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ImplImportError(
            f"{_show(path)} has a syntax error on line {e.lineno}: {e.msg}\n"
            f"    {(e.text or '').rstrip()}"
        ) from None
    except Exception as e:  # noqa: BLE001 - whatever the learner's file raises is reported
        frames = [f for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == path]
        line = f"\n    at {_show(path)}, line {frames[-1].lineno}" if frames else ""
        raise ImplImportError(
            f"importing {_show(path)} failed: {type(e).__name__}: {e}{line}"
        ) from None
    _loaded[path] = module
    return module


def _show(path: Path) -> str:
    try:
        return str(path.relative_to(catalog.ROOT))
    except ValueError:
        return str(path)
