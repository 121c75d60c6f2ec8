"""Each drill's spec (drills/spec.py) is the one place its checks' names and points live: the
suites, the negatives, the lessons' grading tables and `--check` follow it."""

import importlib
import re

import pytest
from test_self_editions import grading_rows  # the module pytest collects, from tests/

from drills import catalog, controls, grading, versions
from drills.judge.testing import checks_of


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_a_drill_is_worth_100_points_under_unique_ids_and_names(drill):
    checks = drill.spec.checks
    assert sum(c.points for c in checks) == 100
    assert len({c.id for c in checks}) == len(checks), [c.id for c in checks]
    assert len({c.name for c in checks}) == len(checks), [c.name for c in checks]
    assert all(re.fullmatch(r"[a-z0-9_]+", c.id) for c in checks), "ids are typed in CHECK="
    assert all(c.points >= 0 for c in checks)


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_the_suite_marks_every_check_of_its_spec_in_order_with_its_name_and_points(drill):
    suite = importlib.import_module(f"tests.test_{drill.slug}")
    marks = [
        mark.kwargs
        for test in vars(suite).values()
        for mark in getattr(test, "pytestmark", [])
        if mark.name == "check"
    ]
    marked = list(dict.fromkeys(m["id"] for m in marks))
    assert marked == [c.id for c in drill.spec.checks]
    for m in marks:
        c = drill.spec.check(m["id"])
        assert (m["name"], m["points"]) == (c.name, c.points)
    # and so does the reading that needs no torch (exports show each check's cases)
    cases = catalog.suite_cases(drill)
    assert all(cases[c.id] for c in drill.spec.checks)


def test_a_check_the_spec_does_not_declare_is_named_where_the_suite_is_imported():
    check = checks_of(catalog.find("t1").spec)
    with pytest.raises(KeyError, match="no check has the id 'tails'; the ids are adds, tail"):
        check("tails")


def test_every_negative_loses_checks_its_spec_declares():
    """LOSES holds ids of its drill's checks."""
    for path in sorted(controls.NEGATIVES.glob("t*/*.py")):
        ids = {c.id for c in catalog.find(path.parent.name).spec.checks}
        loses = versions.negative_meta(path)["LOSES"]
        assert loses and set(loses) <= ids, path


def test_check_chooses_by_id_before_words_of_a_name():
    t1, t3 = catalog.find("t1"), catalog.find("t3")
    # "tail" is t1's id of one check; "k_tail" is t3's; "edges" words of one t3 name
    assert grading.select_checks(t1, "tail") == ["tail"]
    assert grading.select_checks(t3, "k_tail") == ["k_tail"]
    assert grading.select_checks(t3, "K LOOP") == ["last_k_block"]
    assert len(grading.select_checks(t3, "masks")) == 2


def lesson_table(drill: catalog.Drill) -> list[tuple[str, str]]:
    """(check, points) of each row of the English lesson's grading table."""
    rows = grading_rows(drill.lesson.read_text())
    assert rows, f"{drill.lesson.name} has no grading table"
    return [(row[0], row[1]) for row in rows]


def without_asides(name: str) -> str:
    return re.sub(r" \((?:[^()]|\([^()]*\))*\)", "", name)  # "(w.t(), slices)" too


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_the_lessons_grading_table_lists_the_spec(drill):
    """Each row is a check of the spec, in its order, by its name or its name without its
    asides in brackets, with its points ('extra' for an optional check)."""
    rows = lesson_table(drill)
    assert len(rows) == len(drill.spec.checks), rows
    for (name, points), c in zip(rows, drill.spec.checks, strict=True):
        assert name in (c.name, without_asides(c.name)), (name, c.name)
        assert points == ("extra" if c.optional else str(c.points)), (name, points)
