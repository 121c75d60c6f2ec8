"""The judge's comparison of a result with the float64 one: what it allows, what it never
allows, and how it measures a matmul's rounding."""

import torch

from drills.judge.testing import (
    Guarded,
    Launch,
    Tolerance,
    compare,
    dot_product_tolerance,
    k_loop_mistake,
    matches,
    matches_reads,
)
from drills.judge.testing.diagnose import stepped_by

MATMUL = Tolerance(1e-2, 2e-3)  # t3's and t4's


def operands(seed: int, M=96, N=80, K=72) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(M, K, generator=gen).half(), torch.randn(K, N, generator=gen).half()


def split_k_in_fp16(a: torch.Tensor, b: torch.Tensor, block_k=16) -> torch.Tensor:
    """What two split-K programs that add their fp16 partial sums into c with atomics leave
    there: each split's sum rounded to fp16, then their sum rounded (the old triton.ops.matmul
    with SPLIT_K = 2, whose programs take every other block of K)."""
    k = torch.arange(a.shape[1])
    first = (k // block_k) % 2 == 0
    a, b = a.double(), b.double()
    partials = [(a[:, ks] @ b[ks]).half() for ks in (first, ~first)]
    return (partials[0].double() + partials[1].double()).half()


def test_a_matmul_that_rounds_once_per_split_is_judged_by_the_size_of_its_terms():
    rejected_by_size_of_result = 0
    for seed in range(100):
        a, b = operands(seed)
        got, expected = split_k_in_fp16(a, b), (a.double() @ b.double()).half()
        assert compare(got, expected, dot_product_tolerance(MATMUL, a, b)) is None, seed
        rejected_by_size_of_result += compare(got, expected, MATMUL) is not None
    # the tolerance this replaces, against |expected|, failed such a kernel now and then
    assert rejected_by_size_of_result > 0


def test_one_wrong_element_of_a_matmul_is_still_seen():
    a, b = operands(0)
    expected = (a.double() @ b.double()).half()
    got = expected.clone()
    got[5, 7] += a[5].double().square().sum().sqrt().item()  # off by about a row of a's size
    report = compare(got, expected, dot_product_tolerance(MATMUL, a, b))
    assert report is not None and "1 of 7680 elements" in report, report
    assert "0.002 * (|a| @ |b|)" in report, report


def test_nan_never_matches_not_even_an_expected_nan():
    expected = torch.tensor([1.0, float("nan"), 3.0])
    got = torch.tensor([1.0, float("nan"), float("nan")])
    report = compare(got, expected, Tolerance(1.0, 1.0))
    assert report is not None and "2 of 3 elements" in report, report


def test_an_output_of_only_nan_is_not_taken_for_reads_that_reach_the_padding():
    # atomics into a NaN canary leave only NaN; a guessed mistake whose reads reach the
    # padding computes only NaN too, and that coincidence must not name the mistake
    got = torch.full((4, 3), float("nan"), dtype=torch.float16)
    assert not matches_reads(got, torch.full((4, 3), float("nan")), MATMUL)
    # a mistake whose own arithmetic gives only NaN (0 / 0 in every row) is still named
    assert matches(got, torch.full((4, 3), float("nan")), MATMUL)
    partly = torch.ones(4, 3, dtype=torch.float16)
    partly[0] = float("nan")
    assert matches_reads(partly, torch.where(partly.isnan(), partly, 1.0).double(), MATMUL)


def test_split_k_stores_are_named_whichever_split_won_every_tile():
    # K = 48 in blocks of 32, two splits of one block each: where the first split's store won
    # everywhere, c is also what a K loop that rounds down leaves, and where the second's did,
    # what acc zeroed inside the loop leaves; a GPU decides which, run by run
    a, b = operands(3, K=48)
    launch = Launch("matmul_kernel", (4, 2), {"BLOCK_K": 32, "SPLIT_K": 2})
    diagnose = k_loop_mistake(a, b, dot_product_tolerance(MATMUL, a, b), "BLOCK_K")
    for ks in (slice(0, 32), slice(32, 48)):
        one_split = (a[:, ks].double() @ b[ks].double()).half()
        assert "the last store won" in diagnose(launch, one_split)
    without_splits = Launch("matmul_kernel", (4, 2), {"BLOCK_K": 32})
    first_block = (a[:, :32].double() @ b[:32].double()).half()
    assert "tl.cdiv(K, BLOCK_K)" in diagnose(without_splits, first_block)


def test_a_guessed_mistake_leaves_out_the_rows_whose_reads_left_the_guarded_buffer():
    """a's pointers stepped by b's stride along K read past a's buffer, where a GPU finds
    whatever lies there (an H100 read other values and NaN padding past a 2048 x 2048 a): the
    rows of c whose reads stayed in the buffer, in a or in its NaN padding, name the mistake."""
    a, b = operands(4, M=64, N=64, K=256)
    ga, gb = Guarded.holding(a), Guarded.holding(b)
    step = 16
    offsets = stepped_by(ga.tensor, step, 1, gb.tensor.stride(0))
    past = ga.past_the_ends(offsets).any(1)
    product = (ga.read_at(offsets) @ b.double()).half()
    finite = ~product.isnan().any(1)
    # rows of every kind: reads inside a, reads reaching its padding, reads past its buffer
    assert finite.any() and (~finite & ~past).any() and past.any() and not past.all()
    unknown = torch.randn(64, 64, generator=torch.Generator().manual_seed(5)).half()
    got = torch.where(past[:, None], unknown, product)
    diagnose = k_loop_mistake(a, b, dot_product_tolerance(MATMUL, a, b), "BLOCK_SIZE_K", (ga, gb))
    launch = Launch("matmul_kernel", (16,), {"BLOCK_SIZE_K": step})
    assert "the pointers into a moved 16 steps of b's stride along K" in diagnose(launch, got)
    # a known row that differs: the guess is not what happened
    got[0, 0] += 8
    assert "pointers into a" not in diagnose(launch, got)
