"""Helpers the graded suites use to catch a learner's mistakes and name them, by idea:

- suite: a suite's checks, GPU-only and bf16 cases, seeds, drawn sizes, and a case's verdict;
- guarded: canary-padded buffers, so writes outside a tensor, elements never written and
  unmasked reads that reach the result all show;
- record: what a call did, as the runner tells it;
- compare: closeness, and whether a result is what a given mistake computes;
- tiles: the map of an output's tiles;
- diagnose: matmul mistakes recognised by their results;
- rows: what the suites of row-wise kernels (the softmaxes) share;
- case: one call of a learner's host function, and every check around it.

The judge grades the buffers it owns, which only its own execution of the kernels wrote. What
the runner's record says of the host code (torch computing, copies) explains a result.
"""

from drills.errors import explain
from drills.judge.testing.case import (
    Case,
    ConfigPruned,
    Hints,
    adds_with_atomics,
    check_allocates,
    descriptor_store_chunks,
    failure,
    in_row_chunk_tails,
    kernels_launched,
    must_compile,
    note,
    recorded_launches,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    take_notes,
    values_advice,
    watch,
    writers_by_prefix,
)
from drills.judge.testing.compare import (
    DTYPE_NAMES,
    TOLERANCES,
    Tolerance,
    compare,
    dot_product_tolerance,
    far_nearer,
    matches,
    matches_reads,
)
from drills.judge.testing.diagnose import k_loop_mistake
from drills.judge.testing.guarded import Guarded
from drills.judge.testing.record import Launch, Returned, Watched
from drills.judge.testing.suite import (
    NOT_RUN,
    RUN_SEED,
    CaseFailed,
    Drawn,
    big_gpu_memory,
    checks_of,
    device,
    drawn,
    fail,
    generator,
    gpu_case,
    large_on_the_interpreter,
    needs_bf16,
    needs_gpu,
    not_applicable,
    sides,
    small_integers,
)
from drills.judge.testing.tiles import MANY_TILES, TileMap, matmul_tile, stored_by, tile_map

__all__ = [
    "adds_with_atomics",
    "big_gpu_memory",
    "Case",
    "CaseFailed",
    "check_allocates",
    "checks_of",
    "compare",
    "ConfigPruned",
    "descriptor_store_chunks",
    "device",
    "dot_product_tolerance",
    "Drawn",
    "drawn",
    "DTYPE_NAMES",
    "explain",
    "fail",
    "failure",
    "generator",
    "gpu_case",
    "Guarded",
    "Hints",
    "in_row_chunk_tails",
    "k_loop_mistake",
    "kernels_launched",
    "Launch",
    "MANY_TILES",
    "far_nearer",
    "matches",
    "matches_reads",
    "matmul_tile",
    "must_compile",
    "needs_bf16",
    "large_on_the_interpreter",
    "needs_gpu",
    "not_applicable",
    "NOT_RUN",
    "note",
    "recorded_launches",
    "Returned",
    "run_case",
    "run_in_every_autotune_config",
    "RUN_SEED",
    "run_twice",
    "sides",
    "small_integers",
    "stored_by",
    "take_notes",
    "tile_map",
    "TileMap",
    "Tolerance",
    "TOLERANCES",
    "values_advice",
    "watch",
    "Watched",
    "writers_by_prefix",
]
