"""The judge's verdicts, kind by kind, on hand-made observations: what the judge's buffers hold
after a call and what the runner's record says of it, without running any learner code. Each
case names the kind of mistake (drills.failures.Kind) that the report, the exports and the
Chinese edition are chosen by, and the words that say it."""

from types import SimpleNamespace

import pytest
import torch

from drills import chinese
from drills.failures import Kind
from drills.judge.remote import buffer_ref
from drills.judge.testing import (
    TOLERANCES,
    Case,
    Guarded,
    Hints,
    Launch,
    Returned,
    Watched,
    failure,
)

N = 256
HINTS = Hints(outside="Mask the store.", unwritten="Cover every element.", nan="Mask the loads.")


def observed(
    write=None, *, launches=1, computed=(), reads=None, num_warps=4, change_x=False, returns="out"
):
    """A case of adding two vectors of N elements on the CPU, the call already made: `write`
    (out, expected) puts what the kernels stored into the judge's output; the record has
    `launches` launches given `out`, the torch operations `computed`, the loads outside the
    inputs `reads`, and the call returned `returns`. What failure() says of it: (kind,
    message) or None."""
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(N, generator=gen), torch.randn(N, generator=gen)
    inputs = {"x": Guarded.holding(x), "y": Guarded.holding(y)}
    out = Guarded((N,), torch.float32, output=True)
    before = {name: g.snapshot() for name, g in inputs.items()}
    case = Case(
        name=f"n={N}",
        fn=SimpleNamespace(code=SimpleNamespace(source=None)),
        inputs=inputs,
        out=out,
        expected=x + y,
        tol=TOLERANCES[torch.float32],
        hints=HINTS,
    )
    if write:
        write(out, x + y)
    if change_x:
        inputs["x"].tensor[3] += 1
    given = {"x": {"tensor": "fp32"}, "out": {"tensor": "fp32", "ref": buffer_ref(out.tensor)}}
    step = {"grid": [N // 64], "args": given | {"num_warps": num_warps}, "kernel": "add_kernel"}
    returned = inputs["x"].tensor if returns == "x" else out.tensor
    spec = {"shape": [N], "stride": [1], "offset": returned.storage_offset()}
    watched = Watched(
        Returned("Tensor", spec | {"ref": buffer_ref(returned)}),
        [Launch.from_step(step) for _ in range(launches)],
        [],
        list(computed),
        reads or {},
        {name: len(offsets) for name, offsets in (reads or {}).items()},
        None,
    )
    return failure(case, watched, before)


def right(out, expected):
    out.tensor.copy_(expected)


CASES = {
    Kind.NO_LAUNCH: (dict(launches=0), "no Triton kernel was launched"),
    Kind.HOST_COMPUTED: (dict(launches=1, computed=["aten.add"]), "came from host code"),
    Kind.NEVER_WRITTEN: (
        dict(write=lambda out, e: out.tensor[: N // 2].copy_(e[: N // 2])),
        "were never written",
    ),
    Kind.WRONG_VALUES: (dict(write=lambda out, e: out.tensor.copy_(e + 1)), "wrong values"),
    Kind.WROTE_OUTSIDE: (
        dict(write=lambda out, e: (right(out, e), out.buffer.__setitem__(-1, 0.0))),
        "outside the output",
    ),
    Kind.CHANGED_INPUT: (dict(write=right, change_x=True), "changed 1 elements of the input `x`"),
    Kind.READ_OUTSIDE: (dict(write=right, reads={"x": [N + 2]}), "outside `x`"),
    Kind.READ_BEFORE_START: (dict(write=right, reads={"x": [-3]}), "before the first element"),
    Kind.GPU_REFUSES: (dict(write=right, num_warps=3), "num_warps=3"),
    Kind.WRONG_RETURN: (dict(write=right, returns="x"), "must write into it and return it"),
}


@pytest.mark.parametrize("kind", CASES, ids=str)
def test_each_kind_of_mistake_is_named_where_the_judge_sees_it(kind):
    seen, words = CASES[kind]
    found = observed(**seen)
    assert found is not None and found[0] == kind, found
    assert words in found[1], found[1]
    # and the Chinese edition has words of its own for it
    assert chinese.words_for(kind) is not chinese.GENERAL


def test_a_right_call_has_no_verdict():
    assert observed(write=right) is None


def test_every_kind_has_chinese_words():
    assert set(chinese.WORDS) == set(Kind)


def test_a_big_case_that_finds_the_gpu_memory_taken_is_skipped_not_the_graders_failure(
    monkeypatch, tmp_path
):
    """Drills graded at once share the GPU: memory free when a big case checked can be gone
    when it allocates. That case is skipped, as it is when the memory was never free; it is no
    verdict on the learner's file, and no failure of the grader's."""
    from drills import catalog
    from drills.judge.testing import big_gpu_memory

    monkeypatch.setattr(catalog, "ROOT", tmp_path)  # the lock file's folder
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (100e9, 100e9))
    taken = pytest.raises(pytest.skip.Exception, match="which the drills graded beside this one")
    with taken, big_gpu_memory(48e9):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")
