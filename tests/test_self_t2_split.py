"""T2's benchmark reference (solutions/t2_softmax_split.py, content/t2_notes.md): rows of more
than 32K columns split across programs on a GPU. The drill never grades it, so it is checked
here: against float64 on a GPU, in every dtype, with strided rows, a row count and a row length
that divide into no power of two, launched twice (its counts must be back at 0 after each
launch), and with parts whose logits are all masked (-inf); and that it leaves short rows, and
every row on the interpreter, to the drill's kernel."""

import pytest
import torch

from drills import catalog, runtime
from drills.judge.testing import device, needs_bf16, needs_gpu
from drills.loading import load


@pytest.fixture(scope="module")
def split():
    runtime.current()  # before any kernel is decorated
    return load(catalog.ROOT / "solutions" / "t2_softmax_split.py")


def rows(n_rows, n_cols, dtype, *, gap=0, seed=0):
    """Values spread up to 1000 (an exp that would overflow without the max), in rows of a
    tensor gap columns wider than them."""
    gen = torch.Generator(device=device()).manual_seed(seed)
    wide = torch.rand(n_rows, n_cols + gap, generator=gen, device=device()) * 1000
    return wide.to(dtype)[:, :n_cols]


@pytest.mark.parametrize(
    "n_rows, n_cols, dtype, gap",
    [
        pytest.param(3, 65536, torch.float32, 0, marks=needs_gpu("the split waits on a GPU")),
        pytest.param(5, 40000, torch.float32, 24, marks=needs_gpu("the split waits on a GPU")),
        pytest.param(7, 33000, torch.float16, 8, marks=needs_gpu("the split waits on a GPU")),
        pytest.param(
            2, 65536, torch.bfloat16, 0, marks=[needs_gpu("the split waits on a GPU"), needs_bf16()]
        ),
    ],
)
def test_split_rows_match_float64_twice(split, n_rows, n_cols, dtype, gap):
    x = rows(n_rows, n_cols, dtype, gap=gap)
    out = torch.empty(n_rows, n_cols + gap, dtype=dtype, device=device())[:, :n_cols]
    assert split.splits_rows(x)
    expected = torch.softmax(x.double(), dim=-1)
    tolerance = 1e-5 if dtype == torch.float32 else 1e-2
    for launch in range(2):  # the second finds the counts the first left
        out.fill_(float("nan"))
        split.softmax(x, out)
        error = (out.double() - expected).abs().max().item()
        assert error < tolerance, f"launch {launch + 1}: max error {error}"
        assert not split.row_counts(x).any(), "the counts were not left at 0"


@needs_gpu("the split waits on a GPU")
def test_a_part_of_masked_logits_adds_nothing(split):
    # the first 8192 columns, one program's whole part, are -inf (masked), and a row's last
    # column alone is finite: each row still sums to 1 over its finite values, with no NaN
    x = rows(3, 40000, torch.float32)
    x[:, : split.PART] = -torch.inf
    x[2, :-1] = -torch.inf
    out = split.softmax(x)
    error = (out.double() - torch.softmax(x.double(), dim=-1)).abs().max().item()
    assert error < 1e-5, f"max error {error}"


def test_short_rows_and_the_interpreter_take_the_drills_kernel(split):
    drills = load(catalog.find("t2").source("solutions"))
    x = rows(4, 300, torch.float32)
    assert not split.splits_rows(x)
    long_row = rows(1, 32769, torch.float32)
    assert split.splits_rows(long_row) == runtime.current().is_gpu
    assert torch.equal(split.softmax(x), drills.softmax(x))
