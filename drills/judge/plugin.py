"""The pytest side of grading: the judge.

- Selects the runtime before anything else (where no GPU can be, before torch is imported), on
  the interpreter computes on one thread, and guards this process (drills.processes).
- Gives each suite the learner's code as the `impl` fixture: a `LearnerCode`, which reads the
  file (`--impl mine|solutions|FOLDER|FILE.py`) and runs it in a runner process. The judge
  never imports it.
- With `--drills-events-fd N`, streams one JSON line per collected suite, started case and
  finished case into that pipe, so the grader keeps every result even if this process dies.
- With `--drills-checks`, runs only the checks whose ids it lists (`grader.py t3 --check TEXT`).
- Once a case of a check fails, the check's other cases are not run: the check scores nothing
  whatever they do.
"""

import gc
import json
import os
import re
import time
from pathlib import Path

import pytest

from drills import runtime

runtime.interpret_where_no_gpu_can_be()  # before the next imports bring in torch
runtime.one_thread_when_interpreting()

# after the environment above is set: these import torch
from drills import catalog, events, processes  # noqa: E402
from drills.failures import Failure, Kind, Outcome, Stop  # noqa: E402
from drills.judge import testing  # noqa: E402
from drills.judge.remote import TIMEOUT_CAUSES, LearnerCode, LearnerError, Sandbox  # noqa: E402
from drills.limits import CASE_LIMIT  # noqa: E402


def pytest_addoption(parser):
    group = parser.getgroup("drills")
    group.addoption(
        "--impl",
        default=os.environ.get("DRILLS_IMPL", "solutions"),
        help="what to test: mine, solutions, a folder of tN_*.py files, or one file",
    )
    group.addoption("--drills-shown-as", default=None, help="the graded file's name in messages")
    group.addoption("--drills-events-fd", type=int, default=None, help="stream results here")
    group.addoption("--drills-graded", default=None, help="JSON: node ids not to run again")
    group.addoption("--drills-case-limit", type=float, default=None, help="seconds per case")
    group.addoption("--drills-deadline", type=float, default=None, help="time.time() to stop by")
    group.addoption("--drills-sandbox", default=None, help="JSON: how runners are confined")
    group.addoption("--drills-checks", default=None, help="JSON: the ids of the only checks to run")


def pytest_configure(config):
    runtime.current()
    processes.guard_this_process()
    processes.first_to_go_when_memory_runs_out()
    config.addinivalue_line(
        "markers", f"{testing.suite.LARGE_ON_THE_INTERPRETER}: may be left to a GPU for its grid"
    )
    config._drills_events = None
    config._drills_failed_checks = set()
    fd = config.getoption("--drills-events-fd")
    if fd is not None:
        # open for the whole session: results are streamed as each case finishes
        config._drills_events = os.fdopen(fd, "w", buffering=1)


def pytest_unconfigure(config):
    processes.kill_descendants()


def _emit(config, event: dict) -> None:
    stream = getattr(config, "_drills_events", None)
    if stream is not None:
        stream.write(json.dumps(event) + "\n")
        stream.flush()


def _check_of(item):
    marker = item.get_closest_marker("check")
    return (marker.kwargs["name"], marker.kwargs["points"]) if marker else (None, 0)


def _check_id(item) -> str | None:
    marker = item.get_closest_marker("check")
    return marker.kwargs["id"] if marker else None


def _deselect(config, items, unwanted) -> None:
    config.hook.pytest_deselected(items=[item for item in items if unwanted(item)])
    items[:] = [item for item in items if not unwanted(item)]


def pytest_collection_finish(session):
    # pytest's objects and the suite's, made once: like the image's (drills.judge.forks), left
    # out of every full collection from here on
    gc.freeze()


def pytest_collection_modifyitems(session, config, items):
    checks = config.getoption("--drills-checks")
    if checks is not None:
        chosen = set(json.loads(checks))
        _deselect(config, items, lambda item: _check_id(item) not in chosen)
    graded = config.getoption("--drills-graded")
    if graded is not None:
        done = set(json.loads(graded))
        _deselect(config, items, lambda item: item.nodeid in done)
    _emit(
        config,
        events.collected(
            [
                {
                    "nodeid": item.nodeid,
                    "check": _check_of(item)[0],
                    "check_id": _check_id(item),
                    "points": _check_of(item)[1],
                }
                for item in items
            ]
        ),
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    _emit(item.config, events.start(item.nodeid))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """On a GPU, a drill's case runs holding its share of the GPU's memory (testing.gpu_case);
    a test with no check is no drill's case (the repository's own tests load this plugin too)."""
    if runtime.current().is_gpu and _check_id(item) is not None:
        with testing.gpu_case():
            yield
    else:
        yield


def pytest_runtest_setup(item):
    large = item.get_closest_marker(testing.suite.LARGE_ON_THE_INTERPRETER) is not None
    testing.suite.running_a_large_case = large
    check = _check_id(item)
    if check is not None and check in item.config._drills_failed_checks:
        item._drills_not_run = True
        pytest.skip(f"{testing.NOT_RUN}an earlier case of this check failed")


# ---------------------------------------------------------------------------------------------
# The learner's code
# ---------------------------------------------------------------------------------------------


def _show(path: Path) -> str:
    try:
        return str(path.relative_to(catalog.ROOT))
    except ValueError:
        return str(path)


def _slug(suite: str) -> str | None:
    """The drill a suite (test_t1_add) grades (t1_add), or None for any other test module."""
    found = re.fullmatch(r"test_(t\d+_\w+)", suite)
    return found.group(1) if found else None


def _learner_code(config, path: Path) -> LearnerCode:
    kind = runtime.current().kind
    sandbox = config.getoption("--drills-sandbox")
    return LearnerCode(
        path,
        config.getoption("--drills-shown-as") or _show(path),
        config.getoption("--drills-case-limit") or CASE_LIMIT[kind],
        config.getoption("--drills-deadline") or time.time() + 24 * 3600,
        Sandbox(**json.loads(sandbox)) if sandbox else None,
    )


def pytest_collection(session):
    """A session of one suite (the judge's: it grades one drill) starts the learner's code
    before pytest collects the cases, so that the runner and the executor start (on a GPU,
    each makes its CUDA context) in that time (0.3 s on an H100 host) rather than after it."""
    config = session.config
    config._drills_begun = None
    suites = {Path(arg.split("::")[0]).stem for arg in config.args}
    slug = _slug(suites.pop()) if len(suites) == 1 else None
    if slug is None:
        return
    path = catalog.source_file(config.getoption("--impl"), slug)
    if path.is_file():
        config._drills_begun = _learner_code(config, path)
        config._drills_begun.begin()


def pytest_sessionfinish(session):
    begun = getattr(session.config, "_drills_begun", None)
    if begun is not None:  # no case of the suite ran
        begun.close()


@pytest.fixture(scope="module")
def impl(request):
    """The learner's code for the test file's drill, chosen by --impl, run by a runner."""
    config = request.config
    slug = _slug(request.module.__name__.rsplit(".", 1)[-1])
    path = catalog.source_file(config.getoption("--impl"), slug)
    if not path.is_file():
        raise LearnerError(Stop.IMPORT_ERROR, f"{_show(path)} does not exist")
    # the session's one suite is this one: its code, if begun, is this file's
    begun, config._drills_begun = getattr(config, "_drills_begun", None), None
    code = begun or _learner_code(config, path)
    code.begin()
    yield code
    code.close()


# ---------------------------------------------------------------------------------------------
# Reporting each case
# ---------------------------------------------------------------------------------------------


def _classify(excinfo, case: str) -> tuple[str, str, Failure]:
    """(how the case failed, its message, the failure as data) for a failed case, in words a
    learner can act on. The message is the judge's own, so taking it apart here is reading
    what the judge wrote, once: nothing after the judge parses it."""
    err = excinfo.value
    if isinstance(err, testing.CaseFailed):
        failure = Failure.from_message(err.kind, err.text, case=case, label=err.label)
        return Stop.FAILED, str(err), failure
    if isinstance(err, LearnerError):
        return (
            err.kind,
            str(err),
            Failure.from_message(err.shows, str(err), case=case, line=err.line),
        )
    text = str(err)
    if text.startswith("Timeout") or "Timeout (>" in text:
        text = f"did not finish in time. {TIMEOUT_CAUSES}"
        return Stop.TIMEOUT, text, Failure.from_message(Kind.TIMEOUT, text, case=case)
    if type(err).__name__ == "OutOfMemoryError":
        text = _no_memory_for_the_judge()
        return Stop.FAILED, text, Failure.from_message(Kind.GPU_MEMORY, text, case=case)
    # the judge's own failure (every verdict of a suite names its kind): say so, rather than
    # blame the learner
    text = f"the grader failed on this case: {type(err).__name__}: {text[:2000]}"
    return Stop.FAILED, text, Failure.from_message(Kind.GRADER_FAILED, text, case=case)


def _no_memory_for_the_judge() -> str:
    """torch's OutOfMemoryError in the judge's own code, allocating a case's tensors: the GPU's
    memory is held elsewhere. The check cannot pass on a case it could not run, or a file that
    fills the GPU would pass every check it fills it for."""
    import torch

    free, total = torch.cuda.mem_get_info()
    return (
        "the GPU had no memory left for the judge's own tensors of this case "
        f"({free / 2**30:.1f} of {total / 2**30:.1f} GiB free after it tried). Other processes "
        "hold it (a notebook's, another grade's: nvidia-smi lists them), or your host code "
        "allocated it. Free it and grade again; until then this check cannot pass."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.when == "setup":
        item._drills = {"outcome": Outcome.PASSED, "kind": "", "message": ""}
        testing.take_notes()  # a case's notes are its own
    state = item._drills
    if report.skipped and call.when in ("setup", "call"):
        # setup: a GPU-only case, or a check that already failed; call: a case that needs
        # more GPU memory than is free, or one that does not apply to this file ("not run: ")
        reason = str(report.longrepr[-1]).removeprefix("Skipped: ")
        not_run = getattr(item, "_drills_not_run", False) or reason.startswith(testing.NOT_RUN)
        outcome = Outcome.NOT_RUN if not_run else Outcome.SKIPPED
        state.update(outcome=outcome, message=reason)
    elif report.failed and state["outcome"] != Outcome.FAILED:
        kind, message, failure = _classify(call.excinfo, _case_of(item))
        state.update(outcome=Outcome.FAILED, kind=kind, message=message, failure=failure.to_json())
        tiles = getattr(call.excinfo.value, "tiles", None)  # a CaseFailed's map, as data
        if tiles is not None:
            state["tiles"] = tiles.to_json()
        if _check_id(item) is not None:
            item.config._drills_failed_checks.add(_check_id(item))
    if call.when == "teardown":
        notes = testing.take_notes()
        if state["outcome"] == Outcome.PASSED:
            state["message"] = "\n".join(notes)
        name, points = _check_of(item)
        result = events.result(item.nodeid, name, _check_id(item), points, _case_of(item), **state)
        _emit(item.config, result)


def _case_of(item) -> str:
    return item.callspec.id if hasattr(item, "callspec") else ""
