"""The pytest side of grading.

- Selects the runtime before any kernel module is imported.
- Loads the implementation under test (`--impl mine|solutions|FOLDER|FILE.py`) for the `impl`
  fixture, from its file, as `@triton.jit` needs real source files.
- With `--drills-events PATH`, streams one JSON line per collected suite, started case and
  finished case, so the grader keeps every result even if this process dies mid-run.
"""

import importlib.util
import json
import os
import re
import sys
import traceback
from pathlib import Path

import pytest

from drills import NotStarted, catalog, runtime
from drills.testing import explain

# Exit status asking the grader to resume the remaining checks in a fresh process: after a CUDA
# fault the context is unusable, and after a timeout the next case of that check would most
# likely hang too, so the rest would fail or wait for reasons not their own.
RESTART_EXIT = 75

_CUDA_FAULT = re.compile(
    r"CUDA error|illegal memory access|unspecified launch failure|"
    r"device-side assert|misaligned address",
    re.IGNORECASE,
)


class ImplImportError(Exception):
    """The file under test could not be imported (syntax error, bad import, missing file)."""


def pytest_addoption(parser):
    group = parser.getgroup("drills")
    group.addoption(
        "--impl",
        default=os.environ.get("DRILLS_IMPL", "solutions"),
        help="what to test: mine, solutions, a folder of tN_*.py files, or one file",
    )
    group.addoption("--drills-events", default=None, help="stream results as JSON lines here")
    group.addoption(
        "--drills-skip", default=None, help="a file of node ids not to run again (already graded)"
    )


def pytest_configure(config):
    runtime.current()
    config._drills_events = None
    path = config.getoption("--drills-events")
    if path:
        # open for the whole session: results are streamed as each case finishes
        config._drills_events = open(path, "a", buffering=1)  # noqa: SIM115


def _emit(config, **event):
    stream = getattr(config, "_drills_events", None)
    if stream is not None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()
        os.fsync(stream.fileno())


def _check_of(item):
    marker = item.get_closest_marker("check")
    return (marker.kwargs["name"], marker.kwargs["points"]) if marker else (None, 0)


def pytest_collection_modifyitems(session, config, items):
    skip_file = config.getoption("--drills-skip")
    if skip_file:
        done = set(Path(skip_file).read_text().split())
        kept = [item for item in items if item.nodeid not in done]
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid in done])
        items[:] = kept
    _emit(
        config,
        event="collected",
        items=[
            {"nodeid": item.nodeid, "check": _check_of(item)[0], "points": _check_of(item)[1]}
            for item in items
        ],
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    _emit(item.config, event="start", nodeid=item.nodeid)


# ---------------------------------------------------------------------------------------------
# Loading the implementation under test
# ---------------------------------------------------------------------------------------------

_loaded: dict[Path, object] = {}


def source_file(impl: str, slug: str) -> Path:
    if impl.endswith(".py"):
        return Path(impl).resolve()
    return catalog.find(slug).source(impl)


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
        line = _line_in(e.__traceback__, path)
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


def _line_in(tb, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(tb) if Path(f.filename) == path]
    if not frames:
        return ""
    f = frames[-1]
    return f"\n    at {_show(path)}, line {f.lineno}: {(f.line or '').strip()}"


@pytest.fixture(scope="module")
def impl(request):
    """The drill module under test, chosen by --impl, for the test file's drill."""
    slug = re.fullmatch(r"test_(t\d+_\w+)", request.module.__name__.rsplit(".", 1)[-1]).group(1)
    return load(source_file(request.config.getoption("--impl"), slug))


# ---------------------------------------------------------------------------------------------
# Reporting each case
# ---------------------------------------------------------------------------------------------


def _classify(excinfo, impl_path: Path | None) -> tuple[str, str]:
    """(kind, message) for a failed case, in words a learner can act on."""
    err = excinfo.value
    if isinstance(err, NotStarted):
        return "not_started", str(err)
    if isinstance(err, ImplImportError):
        return "import_error", str(err)
    text = str(err)
    if text.startswith("Timeout") or "Timeout (>" in text:
        return "timeout", (
            "did not finish in time: an endless loop, or far too many programs "
            "for the interpreter (a tiny BLOCK_SIZE?)"
        )
    if isinstance(err, pytest.fail.Exception):
        return "failed", text
    kind = "cuda_fault" if _CUDA_FAULT.search(text) else "failed"
    where = _line_in(excinfo.tb, impl_path) if impl_path else ""
    meaning = explain(text)
    meaning = f"\n{meaning}" if meaning else ""
    return kind, f"your code raised {type(err).__name__}: {text.strip()[:2000]}{where}{meaning}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when == "setup":
        item._drills = {"outcome": "passed", "kind": "", "message": ""}
    state = item._drills
    if report.skipped and call.when == "setup":
        state.update(outcome="skipped", message=str(report.longrepr[-1]))
    elif report.failed and state["outcome"] != "failed":
        impl_path = None
        if "impl" in getattr(item, "funcargs", {}):
            impl_path = Path(getattr(item.funcargs["impl"], "__file__", "") or ".").resolve()
        kind, message = _classify(call.excinfo, impl_path)
        state.update(outcome="failed", kind=kind, message=message)
    if call.when == "teardown":
        name, points = _check_of(item)
        case = item.callspec.id if hasattr(item, "callspec") else ""
        _emit(
            item.config,
            event="result",
            nodeid=item.nodeid,
            check=name,
            points=points,
            case=case,
            **state,
        )
        if state["kind"] in ("cuda_fault", "timeout") and item.config._drills_events is not None:
            os._exit(RESTART_EXIT)
