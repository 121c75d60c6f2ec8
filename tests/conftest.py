"""The order of the repo's own tests: the longest first, so that under xdist none of them is
left to run alone at the end (a test with a timeout of its own above the default is one of the
longest; then the other slow ones, which grade whole drills). And their own state file for
this checkout, so that nothing a developer kept in it reaches them."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from drills import catalog, state


def _longest_first(item: pytest.Item) -> int:
    timeout = item.get_closest_marker("timeout")
    if (
        timeout is not None
        and timeout.args
        and timeout.args[0] > float(item.config.getini("timeout"))
    ):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
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
