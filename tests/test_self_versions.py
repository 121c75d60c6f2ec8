"""The newest triton the drills support, run for real (drills/versions.py): its own environment,
in which the grader, its runners and its executors all import that triton. On it the references
get 100, every positive meant for it gets 100, and a positive in a style it removed is told so,
with the replacement, in its first lost check."""

import pytest

from drills import catalog, versions
from drills.runtime import major_minor


@pytest.fixture(scope="module")
def newest() -> str:
    versions.environment(versions.NEWEST)  # made once, from pip's cache after the first time
    return versions.NEWEST


@pytest.mark.slow
@pytest.mark.timeout(600)  # T4's reference and eight positives, each graded in full
@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_the_newest_triton_gives_the_references_and_positives_full_marks(newest, drill):
    graded = versions.inside(newest, "grade", drill.id)
    cell = versions.Cell.of(newest, drill, graded)
    lost = {
        name: result["first_lost"][:600]
        for name, result in graded.get("positives", {}).items()
        if result["score"] < 100
    }
    assert cell.ok, f"{drill.id} on triton {newest}: {cell} {cell.error} {lost}"


@pytest.mark.slow
def test_a_runner_imports_the_triton_it_is_graded_on(newest):
    # runners start with `python -E`: a version chosen by PYTHONPATH never reached them
    assert versions.inside(newest, "runner") == {"triton": newest}


def test_a_positive_is_meant_for_the_versions_its_style_names(tmp_path):
    removed = tmp_path / "block_pointers.py"
    removed.write_text('import triton\n\nTRITON_BEFORE = "3.9"\n')
    assert versions.meant_for(removed, "3.8.0")
    assert not versions.meant_for(removed, "3.9.0") and not versions.meant_for(removed, "3.10.1")
    introduced = tmp_path / "chained_comparison.py"
    introduced.write_text('TRITON_FROM = "3.9"\n')
    assert not versions.meant_for(introduced, "3.8.0")
    assert versions.meant_for(introduced, "3.9.0") and versions.meant_for(introduced, "3.10.1")
    assert versions.version_named(introduced, "... from triton 3.9 on ...")
    assert not versions.version_named(introduced, "... from triton 3.8 on ...")


def test_the_pinned_triton_range_is_the_one_make_versions_grades():
    low, high = versions.tested_ranges()["triton"].removeprefix(">=").split(",<")
    oldest, newest = major_minor(versions.SUPPORTED[0]), major_minor(versions.NEWEST)
    assert major_minor(low) == oldest
    assert major_minor(high) == (newest[0], newest[1] + 1)


def test_make_versions_says_each_drill_as_it_ends(monkeypatch, capsys):
    """A version's drills take minutes each: a line per drill as it ends, not silence until
    the row."""
    monkeypatch.setattr(versions, "environment", lambda version: "python")
    graded = {"reference": 100.0, "positives": {}, "negatives": {}}
    monkeypatch.setattr(
        versions,
        "inside",
        lambda version, *args: graded if args[0] == "grade" else {"triton": version},
    )
    cells, ok = versions.row("3.9.0")
    said = capsys.readouterr().err.splitlines()
    assert ok and cells[:2] == ["3.9.0", "3.9.0"]
    assert sorted(line.split()[2] for line in said) == sorted(d.id for d in catalog.DRILLS)
    assert all(line.startswith("triton 3.9.0: ") and line.endswith(" s)") for line in said)
