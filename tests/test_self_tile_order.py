"""The order in which a T4 kernel visits its tiles, as a GPU finds it: writers_by_prefix cuts
the last launch's grid to its first k programs, k = 1, 2, ..., and reads which tiles each cut
writes first. The interpreter notes every store's program itself, so here the two must agree,
for a kernel that computes its tile through grouped_tile, one that computes it inline, one
that walks the tiles row by row, one whose launch names neither tile nor group, and a
persistent one, whose programs stride over the tiles by a number the launch passes; a file
that reads the grid's size, whose programs' share of tiles a cut changes, gets no answer
rather than a wrong one."""

import dataclasses
import time

import pytest

from drills import catalog, controls, runtime
from drills.judge.remote import LearnerCode
from drills.judge.testing import watch, writers_by_prefix
from tests.test_t4_matmul import make_case, order_case

ROOT = catalog.ROOT
POSITIVES = ROOT / "tests" / "positives" / "t4_matmul"

pytestmark = pytest.mark.skipif(
    runtime.current().is_gpu, reason="compares with the interpreter's own notes of each store"
)


def learner_code(path):
    return LearnerCode(path, path.name, 60, time.time() + 600)


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "solutions" / "t4_matmul.py",
        POSITIVES / "tutorial_03.py",
        ROOT / "tests" / "negatives" / "t4_matmul" / "inline_row_major.py",
        POSITIVES / "names_of_its_own.py",
        POSITIVES / "persistent.py",
        POSITIVES / "config_pre_hook_zeroes_c.py",
        ROOT / "tests" / "negatives" / "t4_matmul" / "persistent_row_major.py",
    ],
    ids=lambda p: p.stem,
)
def test_cut_grids_find_the_program_the_interpreter_saw_store_each_tile(path, tmp_path):
    if controls.edits_of(path) is not None:
        path = controls.standalone(path, tmp_path)
    code = learner_code(path)
    try:
        case = order_case(code, lambda group: group + 1, seed=3)
        if case.out.tensor.numel() > 64 * 96:  # a launch of names of its own: a smaller case
            case = dataclasses.replace(make_case(code, 64, 96, 32, seed=3), stores=case.stores)
        watched = watch(case, with_out=True)
        noted = watched.writers.clone()
        assert (noted >= 0).all() and noted.unique().numel() >= 3
        found = writers_by_prefix(case, watched)
        assert found is not None and found.equal(noted)
    finally:
        code.close()


def test_a_file_that_reads_the_grids_size_gets_no_answer_from_cut_grids(tmp_path):
    # the persistent kernel striding by tl.num_programs(0), which a cut changes, not NUM_SMS
    text = controls.mutated(
        controls.source_text(POSITIVES / "persistent.py"),
        [
            (
                "tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True)",
                "tile_id in tl.range(start_pid, num_tiles, tl.num_programs(0), flatten=True)",
            )
        ],
    )
    path = tmp_path / "t4_matmul.py"
    path.write_text(text)
    code = learner_code(path)
    try:
        case = order_case(code, lambda group: 2 * group, seed=3)
        watched = watch(case, with_out=True)
        (M, N), (bm, bn) = case.out.tensor.shape, case.tile(watched.launches[-1])
        assert watched.launches[-1].grid[0] < -(-M // bm) * -(-N // bn)  # several tiles each
        assert writers_by_prefix(case, watched) is None
    finally:
        code.close()
