"""The order of the repo's own tests: the longest first, so that under xdist none of them is
left to run alone at the end (a test with a timeout of its own above the default is one of the
longest; then the other slow ones, which grade whole drills)."""

import pytest


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
