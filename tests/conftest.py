"""The order of the repo's own tests: the longest first, so that under xdist none of them is
left to run alone at the end (a test with a timeout of its own above the default is one of the
longest; then the other slow ones, which grade whole drills). On a GPU, the slow ones get the
judge's own limit for a drill. And their own state file for this checkout, so that nothing a
developer kept in it reaches them."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from drills import catalog, limits, runtime, state


def _longest_first(item: pytest.Item) -> int:
    timeout = item.get_closest_marker("timeout")
    if (
        timeout is not None
        and timeout.args
        and timeout.args[0] > float(item.config.getini("timeout"))
    ):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def give_whole_drills_the_gpus_limit(items: list[pytest.Item]) -> None:
    """pytest's 120 s (pyproject.toml) is sized for the interpreter. On a GPU a grade first
    compiles its kernels, every autotune config of a T4 file, and the judge itself allows a drill
    limits.DRILL_LIMIT["gpu"]; T4 positives failed in crowded GPU runs of the controls and
    passed alone (MEASUREMENTS.md). So there a slow test (one that grades whole drills) with no
    timeout of its own gets the drill's limit, and a minute for the rest."""
    for item in items:
        if item.get_closest_marker("slow") and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(limits.DRILL_LIMIT["gpu"] + 60))


def on_a_gpu(config: pytest.Config) -> bool:
    """Whether the repo's own tests run on a GPU: runtime.select()'s test, without the
    environment it sets for the interpreter. Not asked in a judge, whose limits are its own."""
    if config.getoption("--drills-graded", default=None) is not None:
        return False
    return runtime.first_gpu() is not None and not runtime.interpreter_requested()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if on_a_gpu(config):
        give_whole_drills_the_gpus_limit(items)
    items.sort(key=_longest_first)  # stable: file order within each group


def pytest_configure(config: pytest.Config) -> None:
    """The tests keep a state file of their own for this checkout (drills/state.py), in this
    process and every tool it runs here: never the developer's .drills/state.json. Not in a
    judge, which runs a drill's suite with this file too and keeps no state."""
    if config.getoption("--drills-graded", default=None) is not None:
        return
    folder = tempfile.mkdtemp(prefix="drills-test-state-")
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    state.STATE = Path(folder) / "state.json"
    os.environ["DRILLS_TEST_STATE"] = f"{catalog.ROOT}{os.pathsep}{state.STATE}"
