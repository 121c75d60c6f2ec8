"""Graded checks for t5 · Online softmax over rows of any length. Lesson: content/t5_online_softmax.md

Every case runs the learner's `softmax` on an input and an output that sit inside
canary-filled buffers (with canaries between the rows too, where the case is strided), so each
check also catches reads and writes outside the tensors, columns never written and a result
computed without the kernel. The expected result is torch.softmax in float64. A case that gives
`parts` asks for that many programs on each row, and its row's parts must be combined.
"""

import dataclasses
import math

import pytest
import torch

from drills import runtime, spec
from drills.failures import Kind
from drills.judge.testing import (
    DTYPE_NAMES,
    Case,
    Drawn,
    Guarded,
    Hints,
    Tolerance,
    Watched,
    big_gpu_memory,
    check_allocates,
    checks_of,
    device,
    drawn,
    fail,
    generator,
    matches,
    needs_bf16,
    needs_gpu,
    recorded_launches,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    sides,
    writers_by_prefix,
)
from drills.judge.testing.compare import wrong_elements
from drills.judge.testing.rows import ONE_HOT_FAR, int64_advice, softmax_bench

# As in t2: softmax values are at most 1 and often tiny, so the check is relative, and GPU exp
# (ex2.approx) is good to a few fp32 ulps. A long row's sum adds many terms in fp32: rtol 2e-5.
TOLERANCES = {
    torch.float32: Tolerance(1e-10, 2e-5),
    torch.float16: Tolerance(6e-8, 1e-3),
    torch.bfloat16: Tolerance(1e-10, 8e-3),
}
# near -1e5, fp32 values are 0.008 apart: a kernel that scales x for exp2 before it subtracts
# the max is right to 1%, and a padding that wins the max makes every output 0 or NaN
FAR_BELOW_ZERO = Tolerance(1e-10, 1e-2)

LOG2_E = 1 / math.log(2)

# Longer than any block can be: triton refuses a block of more than 2^20 elements.
LONGEST_BLOCK = 2**20

SPEC = spec.of("t5_online_softmax")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="Each block's loads and stores need mask = cols < the end of the part (at most "
    "n_cols), and row r starts at r * stride (a different stride for x and for out).",
    outside_read="Load every block with the mask the store uses, padding with other=-float('inf').",
    unwritten="Walk every block of the part, up to n_cols (range(start, end, BLOCK_SIZE) "
    "covers a last, partial block), launch the grid (n_rows, parts), and let the parts cover "
    "the row: part_cols is cdiv(n_cols, parts) rounded up to whole blocks (n_cols // parts, "
    "rounded down first, can leave the row's last columns to no part).",
    nan="NaN means an exp overflowed (subtract the max), every exp of a row underflowed to 0 "
    "and 0 / 0 followed (a running max that starts at 0, or a padding that beat the row's "
    "values: start at -inf and pad with -inf), exp(-inf - (-inf)) from a max that was "
    "still -inf, or a rescale taken the wrong way round, exp(new max - old max), which is "
    "exp(+inf) on the first block.",
    values="softmax(x)_i = exp(x_i - m) / s, where m is the row's max and s the sum of "
    "exp(x_j - m) over the whole row: every block of every part, merged.",
)
PAD_HINTS = dataclasses.replace(
    HINTS,
    values="Masked lanes must load -inf and the running max must start at -inf: with 0, a row "
    "far below zero gets 0 as its max, and every exp() underflows.",
)
ROW_STARTS = (
    "Row r starts at x_ptr + r * stride_x_row, which is not n_cols when x is a slice of a "
    "wider tensor; the output has its own row stride. Both kernels read x: each needs x's."
)
STRIDE_HINTS = dataclasses.replace(HINTS, values=ROW_STARTS, outside_read=ROW_STARTS)
COMBINE_HINTS = dataclasses.replace(
    HINTS,
    nan="NaN in a row that is split: the combine read pairs that were never stored (a part "
    "with no columns must still store (-inf, 0)), or read past the row's PARTS pairs (mask "
    "the padding pairs, parts < PARTS, and load them as -inf and 0), or read another row's "
    "(row r's pairs start at r * PARTS), or weighed each part's sum by exp(row max - part "
    "max), the wrong way round: a padding pair's is then 0 * exp(+inf).",
    values="The row's max is the largest of its parts' maxes, and its sum adds each part's "
    "sum times exp(part max - row max); every program of the row uses that one pair.",
)


def layout(launch, n_cols: int) -> tuple[int | None, int | None]:
    """(columns a block, columns a part) of a launch, where it passed them: BLOCK_SIZE and
    part_cols, or what its grid's second axis implies."""
    if launch is None:
        return None, None
    block = launch.size("BLOCK_SIZE")
    part_cols = launch.size("part_cols")
    if part_cols is None and len(launch.grid) == 2 and block:
        part_cols = math.ceil(math.ceil(n_cols / launch.grid[1]) / block) * block
    return block, part_cols


def owner(launch, idx) -> str:
    row, col = idx[0], idx[-1]
    _, part_cols = layout(launch, col + 1)
    if launch is None or len(launch.grid) != 2 or not part_cols:
        return ""
    part = col // part_cols
    if row >= launch.grid[0] or part >= launch.grid[1]:
        return f"row {row}, part {part}, which the grid {launch.grid} has no program for"
    return f"row {row}, part {part} (program ({row}, {part}) of the grid {launch.grid})"


def online_stats(
    x: torch.Tensor,
    block: int,
    *,
    rescale: bool = True,
    first_max: float = -math.inf,
    carry_max: bool = True,
    shift_from_minus_inf: bool = True,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A part's (max, sum) per row, walked in blocks as a kernel walks it; rescale=False keeps
    what the sum added under an older, smaller max, and carry_max=False takes each block's
    max alone as the new one. While the max is still -inf (only -inf seen), the right walk
    subtracts 0; shift_from_minus_inf=False subtracts the -inf, which gives NaN."""
    running_max = torch.full((x.shape[0], 1), first_max, dtype=x.dtype, device=x.device)
    running_sum = torch.zeros_like(running_max)
    for part in x.split(block, dim=1):
        block_max = part.amax(dim=1, keepdim=True)
        new_max = torch.maximum(running_max, block_max) if carry_max else block_max
        shift = new_max
        if shift_from_minus_inf:
            shift = torch.where(new_max == -math.inf, 0.0, new_max)
        if rescale:
            running_sum = running_sum * torch.exp(running_max - shift)
        running_sum = running_sum + torch.exp(part - shift).sum(dim=1, keepdim=True)
        running_max = new_max
    return running_max, running_sum


def combined(
    pairs: list[tuple[torch.Tensor, torch.Tensor]], *, rescale: bool = True, power: float = 1.0
):
    """The row's (max, sum) from its parts' pairs; rescale=False adds each part's sum as it
    was, taken against the part's own max, and power multiplies the weights' exponent (log2(e)
    where a base-2 difference of maxes went to exp)."""
    maxes = torch.cat([m for m, _ in pairs], dim=1)
    sums = torch.cat([s for _, s in pairs], dim=1)
    row_max = maxes.amax(dim=1, keepdim=True)
    weights = torch.exp((maxes - row_max) * power) if rescale else torch.ones_like(sums)
    return row_max, (sums * weights).sum(dim=1, keepdim=True)


def softmax_mistake(x: torch.Tensor, dtype: torch.dtype):
    """A case's diagnose(): it recognises the online softmax's mistakes by their results,
    modelled with the launch's block and part, in float32 as a kernel computes them (their
    NaN and their underflow are part of what they leave)."""
    x = x.float()
    n_cols = x.shape[1]
    tol = dataclasses.replace(TOLERANCES[dtype], rtol=max(TOLERANCES[dtype].rtol, 1e-3))

    def with_stats(pairs_of, *, combine_rescale: bool = True, power: float = 1.0) -> torch.Tensor:
        row_max, row_sum = combined(pairs_of, rescale=combine_rescale, power=power)
        return torch.exp(x - row_max) / row_sum

    right = torch.softmax(x, dim=1)

    def diagnose(launch, out: torch.Tensor) -> str:
        block, part_cols = layout(launch, n_cols)
        if not block or not part_cols:
            return ""
        parts = x.split(part_cols, dim=1)

        def left(candidate: torch.Tensor) -> bool:
            """Whether the mistake that computes `candidate` is what the kernel did: never
            where this case's values do not tell the mistake from the right result."""
            return not matches(candidate, right, tol) and matches(out, candidate, tol)

        if left(with_stats([online_stats(p, block, shift_from_minus_inf=False) for p in parts])):
            return (
                f"a block of {block} columns of -inf alone (masked logits) left the running "
                "max at -inf, and exp(x - max) was exp(-inf - (-inf)), NaN: while the max is "
                "still -inf, subtract 0 instead (tl.where(new_max == -inf, 0.0, new_max)), "
                "which makes every exp() of the block 0."
            )
        if len(parts) > 1:
            own = torch.cat([torch.softmax(p, dim=1) for p in parts], dim=1)
            if left(own):
                return (
                    f"each of the row's {len(parts)} parts came out as a softmax of its own "
                    "columns: every program must normalise by the row's max and sum, merged "
                    "from all of the row's (max, sum) pairs after the first kernel stored them."
                )
            pairs = [online_stats(p, block) for p in parts]
            if left(with_stats(pairs, combine_rescale=False)):
                return (
                    "the row's sum added its parts' sums as they were, but each was taken "
                    "against its own part's max: multiply each by exp(part max - row max) "
                    "before adding them."
                )
            # mistakes that change only each row's sum, some of them by little: named only
            # where one alone fits the output
            suspects = {}
            # a base-2 difference of maxes into exp, or a natural one into exp2
            for power, used, meant in ((LOG2_E, "exp", "exp2"), (math.log(2), "exp2", "exp")):
                why = (
                    f"the combine weighed each part's sum by {used}(part max - row max), in "
                    f"another base than the maxes and sums were taken in: use {meant}, as the "
                    "parts did."
                )
                suspects[why] = with_stats(pairs, power=power)
            # each part walks whole blocks from its start: a part_cols that is not a multiple
            # of the block takes the next part's first columns too, unless the loads stop at
            # the part's end
            walked = [
                x[:, start : start + math.ceil(min(part_cols, n_cols - start) / block) * block]
                for start in range(0, n_cols, part_cols)
            ]
            why = (
                f"the parts overlapped: each part of {part_cols} columns walked whole blocks of "
                f"{block}, past its own end into the next part's columns, which the row's sum "
                "then counted twice. Mask each part's loads with cols < its end, min(start + "
                "part_cols, n_cols), or round part_cols up to whole blocks."
            )
            suspects[why] = with_stats([online_stats(w, block) for w in walked])
            fitting = [why for why, candidate in suspects.items() if left(candidate)]
            if len(fitting) == 1:
                return fitting[0]
            # right to the models' tolerance, and wrong to the case's, which a row that read
            # a like row's pairs can miss by little
            first_right = not wrong_elements(out[:1], right[:1].to(out.dtype), tol).any()
            wrong_rows = wrong_elements(out, right.to(out.dtype), TOLERANCES[dtype]).any(dim=1)
            if len(wrong_rows) > 1 and first_right and wrong_rows[1:].all():
                return (
                    "row 0 came out right and every other row wrong: past the first row, the "
                    "combine read the (max, sum) pairs from elsewhere than the first kernel "
                    f"stored them. Row r's {len(parts)} pairs start at r * parts in both "
                    "kernels: a row pitch of PARTS, the padded count, in one of them reads "
                    "another row's pairs or memory never stored."
                )
        if left(with_stats([online_stats(p, block, rescale=False) for p in parts])):
            return (
                f"the running sum over blocks of {block} columns kept what it had added under "
                "a smaller, earlier max: when the max grows to m_new, multiply the sum by "
                "exp(m_old - m_new) before adding the new block's terms."
            )
        if left(with_stats([online_stats(p, block, carry_max=False) for p in parts])):
            return (
                "the max was each block's own, not carried from the blocks before: a block "
                "below an earlier, larger value then set a smaller max, and its terms overflowed "
                "the sum. Carry it: new_max = tl.maximum(running_max, tl.max(x, axis=0))."
            )
        if left(with_stats([online_stats(p, block, first_max=0.0) for p in parts])):
            return (
                "a row of numbers far below 0 had a finite max above all of its values (0, "
                "or a -1e30 standing in for -inf), so every exp() underflowed and 0 / 0 is "
                "NaN: the running max started at 0 or such a number; or it took the 0 that "
                "guards exp(-inf - (-inf)) after a block, or a part, of -inf alone; or masked "
                "lanes loaded one, either a block's columns past the row's end or the "
                "combine's pairs past parts. Start it at -inf, keep the max itself (never the "
                "guarded shift) as the running max and as a part's stored max, and load "
                "masked lanes as -inf."
            )
        if dtype == torch.float16:
            in_fp16 = [(m, s.half().float()) for m, s in (online_stats(p, block) for p in parts)]
            if any(s.isinf().any() for _, s in in_fp16) and left(with_stats(in_fp16)):
                return (
                    "a part's sum of exp() passed 65504, fp16's largest, and became inf, so "
                    "every output of its row came out 0: keep the running max and sum in "
                    "fp32, and the buffer they are stored in too (torch.float32, not x.dtype)."
                )
        whole_blocks = [p[:, : p.shape[1] // block * block] for p in parts]
        partial = any(p.shape[1] % block for p in parts)
        if (
            partial
            and all(w.shape[1] for w in whole_blocks)
            and left(with_stats([online_stats(w, block) for w in whole_blocks]))
        ):
            return (
                f"the max and the sum left out the last, partial block of {block} columns "
                "(n_cols // BLOCK_SIZE blocks): walk range(start, end, BLOCK_SIZE), which "
                "takes the partial block too, and mask it."
            )
        return ""

    return diagnose


def make_case(
    impl,
    n_rows: int,
    n_cols: int,
    dtype: torch.dtype = torch.float32,
    *,
    seed: int = 0,
    parts: int | None = None,
    scale: float = 1.0,
    shift: float = 0.0,
    ramp: float = 0.0,
    spike: float = 0.0,
    spike_at: int = -1,
    masked: int = 0,
    gap: tuple[int, int] = (0, 0),
    hints: Hints = HINTS,
) -> Case:
    """A softmax case on randn * scale, plus shift in every row but the last of two or more.
    ramp adds 0 to ramp along each row, so that
    the max grows in every block; spike lifts one element that far above the rest, the row's
    last unless spike_at says which; masked sets each row's first columns to -inf, as masked
    logits are (its last, where negative).
    gap puts canaries between the rows of the input and of the output (gap[0] and gap[1]
    elements), giving each its own row stride. parts, when given, is passed on."""
    gen = generator(seed)
    x = torch.randn(n_rows, n_cols, generator=gen, device=device()) * scale
    # the last row of several stays near 0: a mistake that only rows far below 0 show leaves
    # it right, so that an output wrong everywhere (NaN in every row) is not taken for that
    x[: max(1, n_rows - 1)] += shift
    if ramp:
        x += torch.linspace(0, ramp, n_cols, device=device())
    x[:, spike_at] += spike
    if masked > 0:
        x[:, :masked] = -math.inf
    elif masked < 0:
        x[:, masked:] = -math.inf
    x = x.to(dtype)
    inputs = {"x": Guarded.holding(x, row_gap=gap[0])}
    out = Guarded((n_rows, n_cols), dtype, output=True, row_gap=gap[1])
    return Case(
        name=f"{n_rows}x{n_cols} {DTYPE_NAMES[dtype]} seed={seed}"
        + (f" parts={parts}" if parts else "")
        + (f" scale={scale:g}" if scale != 1 else "")
        + (f" shift={shift:g}" if shift else "")
        + (f" rising by {ramp:g} along the row" if ramp else "")
        + (f" element {spike_at % n_cols} +{spike:g}" if spike else "")
        + (f" first {masked} columns -inf" if masked > 0 else "")
        + (f" last {-masked} columns -inf" if masked < 0 else "")
        + (f" row strides {n_cols + gap[0]}/{n_cols + gap[1]}" if any(gap) else ""),
        fn=impl.softmax,
        inputs=inputs,
        out=out,
        expected=torch.softmax(x.double(), dim=-1).to(dtype),
        tol=TOLERANCES[dtype],
        hints=hints,
        kwargs={} if parts is None else {"parts": parts},
        owner=owner,
        diagnose=softmax_mistake(x, dtype),
    )


def run_split(case: Case, n_rows: int, parts: int) -> Watched:
    """Run a case that asks for `parts` programs a row: right values, from a launch that
    gave each row that many programs, no fewer and no more."""
    watched = run_case(case)
    programs = [launch.programs() for launch in watched.launches]
    if n_rows * parts not in programs:
        more = any(p > n_rows * parts for p in programs)
        fail(
            Kind.NOT_SPLIT,
            f"softmax(x, parts={parts}) on {n_rows} rows launched {programs} programs: each "
            f"row must be shared by {parts} programs, the grid (n_rows, parts), each reducing "
            "its part to a (max, sum) pair that the row's programs then combine."
            + (" A given parts is the caller's choice: use it, not more." if more else ""),
            case.name,
        )
    return watched


def programs_on_each_row(case: Case, watched: Watched) -> int | None:
    """The fewest programs of the last launch that stored into one row of the output: the
    interpreter notes each store's program; on a GPU, the launch is run again with each axis
    of its grid cut short in turn (writers_by_prefix). None where that cannot be known: where
    a row was stored by no program, the output came from outside the kernel (a torch copy of
    a result of its own, which the strides check costs) and who computed it does not show."""
    writers = watched.writers
    if writers is None:
        grid = watched.launches[-1].grid
        writers = torch.zeros(case.out.tensor.shape, dtype=torch.int64)
        for axis in range(len(grid)):
            along = writers_by_prefix(case, watched, axis)
            if along is None:
                return None
            writers = writers * grid[axis] + along.long()
    counts = [len(set(row[row >= 0].tolist())) for row in writers.cpu()]
    return None if 0 in counts else min(counts)


def gpu(shape: tuple[int, int], why: str = "too large for the CPU"):
    return pytest.param(shape, id=f"{shape[0]}x{shape[1]}", marks=needs_gpu(why))


def shapes(*pairs: tuple[int, int]) -> list:
    return [pytest.param(p, id=f"{p[0]}x{p[1]}") for p in pairs]


@check("softmax")
@pytest.mark.parametrize(
    "shape",
    [
        *shapes((4, 1000), (3, 5000), (5, 1)),
        drawn((1, 6), (16, 12000)),
        gpu((4096, 4096)),
        # more rows than axes 1 and 2 of a grid hold (65535): rows belong on axis 0
        gpu((70_000, 8)),
    ],
)
def test_softmax_values(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=1), seed=1))


@check("softmax")
def test_more_rows_than_a_program_each(impl):
    # 2000 rows, more than 1024: a host that shares 1024 programs among the rows by floor
    # division gives each 0. A GPU runs the case; on the CPU its 2000 programs would take
    # seconds, so only the host's call is made and recorded: a host that raises fails there
    # too, one that launches too few programs only on a GPU
    case = make_case(impl, 2000, 8, seed=1)
    if runtime.current().is_gpu:
        run_case(case)
    else:
        recorded_launches(case)


@check("softmax")
def test_softmax_twice(impl):
    # two calls in a row: what the first leaves behind (its (max, sum) buffer) must not change
    # the second's result
    run_twice(make_case(impl, 3, 9000, seed=1))


@check("softmax")
def test_softmax_of_other_rows_next(impl):
    # rows near 200, then rows near 0 of the same shape: a row max kept from the first call
    # (merged into with atomic_max, never reset) makes every exp() of the second underflow
    first = make_case(impl, 3, 9000, seed=1, shift=200.0)
    run_twice(first, make_case(impl, 3, 9000, seed=2))


@check("long")
@pytest.mark.parametrize(
    "shape, parts",
    [
        pytest.param((2, 20000), 1, id="2x20000-parts=1"),
        # past the longest block triton allows: the row must be walked
        pytest.param((1, LONGEST_BLOCK + 1), None, id="1x(2^20+1)"),
        pytest.param((4, 3 * LONGEST_BLOCK + 5), None, id="4x(3*2^20+5)", marks=needs_gpu("big")),
    ],
)
def test_long_rows(impl, shape, parts):
    run_case(make_case(impl, *shape, seed=2, parts=parts))


@check("long")
def test_long_rows_in_every_autotune_config(impl):
    # a kernel autotuned over its block may run with any config: each must walk the whole part
    run_in_every_autotune_config(make_case(impl, 2, 9000, seed=2, parts=2))


@check("rescale")
@pytest.mark.parametrize(
    "shape, parts",
    [
        pytest.param((2, 20000), 1, id="2x20000-parts=1"),
        pytest.param((3, 9000), 2, id="3x9000-parts=2"),
        pytest.param(Drawn(((1, 3), (4097, 30000)), near=(4096, 8192)), 1, id="drawn"),
    ],
)
def test_rescales_the_sum(impl, shape, parts):
    # rows that rise by 60 from their first column to their last: the max grows in every
    # block, by more than exp() forgives
    run_case(make_case(impl, *sides(shape, seed=3), seed=3, parts=parts, ramp=60.0))


@check("rescale")
@pytest.mark.parametrize("parts", [1, 2])
def test_keeps_an_early_max(impl, parts):
    # the row's largest value in its first column, 100 above the rest: a max taken over each
    # block alone, not carried from the blocks before, lets later blocks overflow the sum
    run_case(make_case(impl, 2, 9000, seed=3, parts=parts, spike=100.0, spike_at=0))


@check("late_max")
@pytest.mark.parametrize(
    "shape, parts",
    [
        # a last block of one column, and blocks that divide the row: either way the largest
        # value is the row's last, 100 above the rest (more than exp() forgives)
        pytest.param((2, 8193), 1, id="2x8193"),
        pytest.param((2, 12288), 1, id="2x12288"),
        pytest.param((2, 20000), 3, id="2x20000-parts=3"),
        pytest.param(Drawn(((1, 3), (4097, 30000)), offsets=(1, 3)), None, id="drawn"),
    ],
)
def test_late_max(impl, shape, parts):
    run_case(make_case(impl, *sides(shape, seed=4), seed=4, parts=parts, spike=100.0))


@check("padding")
@pytest.mark.parametrize(
    "shape, shift, spike, parts, masked",
    [
        pytest.param((3, 5000), -300.0, 0.0, 1, 0, id="3x5000-shift-300"),
        # a finite padding (-1e4, fp16's -65504) or a running max that starts at 0 wins the
        # max of rows below it
        pytest.param((3, 5000), -1e5, 0.0, 1, 0, id="3x5000-shift-1e5"),
        # -1e30 as padding too: one-hot rows below it (ONE_HOT_FAR)
        pytest.param((2, 4100), *ONE_HOT_FAR, 1, 0, id="2x4100-one-hot-near-2^120"),
        # and in the combine: 3 parts leave a padding pair, which must not win either
        pytest.param((2, 9000), *ONE_HOT_FAR, 3, 0, id="2x9000-one-hot-near-2^120-parts=3"),
        pytest.param((2, 9000), -1e5, 0.0, 3, 0, id="2x9000-shift-1e5-parts=3"),
        pytest.param((3, 300), -1e5, 0.0, None, 0, id="3x300-shift-1e5"),
        # masked logits: a first block, then a whole part, of -inf alone, where a max still
        # at -inf makes exp(-inf - (-inf)) NaN
        pytest.param((2, 9000), 0.0, 0.0, 2, 5000, id="2x9000-first-5000-inf-parts=2"),
        pytest.param((2, 9000), 0.0, 0.0, 2, 8500, id="2x9000-first-8500-inf-parts=2"),
        # and then values far below 0: a max left at the guard's 0 after a block, or a part,
        # of -inf alone wins the max of everything after it
        pytest.param((2, 9000), -300.0, 0.0, 2, 5000, id="2x9000-first-5000-inf-shift-300-parts=2"),
        # four parts of a row of 5000, two of them with no column at all: their max must be
        # -inf, not the guard's 0, or it wins the combine over values far below 0
        pytest.param((2, 5000), -300.0, 0.0, 4, 0, id="2x5000-shift-300-parts=4"),
        # and after the row's values: a block of -inf alone once the max is finite, where a
        # guard against -inf - (-inf) that looks at the block's max, not the running one,
        # rescales the sum by exp(max - 0)
        pytest.param((2, 12288), 0.0, 0.0, 1, -8192, id="2x12288-last-8192-inf-parts=1"),
    ],
)
def test_pads_with_minus_inf(impl, shape, shift, spike, parts, masked):
    case = make_case(
        impl, *shape, seed=5, parts=parts, shift=shift, spike=spike, masked=masked, hints=PAD_HINTS
    )
    case.tol = FAR_BELOW_ZERO
    run_case(case)


@check("dtypes")
@pytest.mark.parametrize(
    "shape, dtype, scale, parts",
    [
        pytest.param((3, 9000), torch.float16, 1.0, None, id="fp16"),
        # 70000 values close together in one part: their sum of exp() passes fp16's largest,
        # 65504, so the running sum, and the buffer it is stored in, must be fp32
        pytest.param((1, 70000), torch.float16, 0.01, 1, id="fp16-sum-past-65504-parts=1"),
        pytest.param((3, 9000), torch.bfloat16, 1.0, None, id="bf16", marks=needs_bf16()),
        # values past fp16's largest (65504): a bf16 input read through fp16 overflows
        pytest.param((3, 9000), torch.bfloat16, 1e5, None, id="bf16-scale-1e5", marks=needs_bf16()),
    ],
)
def test_dtypes(impl, shape, dtype, scale, parts):
    case = make_case(impl, *shape, dtype, seed=6, scale=scale, parts=parts)
    if scale > 1e3:
        case.tol = FAR_BELOW_ZERO
    run_case(case)


@check("strides")
@pytest.mark.parametrize(
    "shape, gap, parts",
    [
        pytest.param((3, 9000), (243, 67), 2, id="3x9000-strides-9243/9067-parts=2"),
        pytest.param((5, 5000), (0, 28), 1, id="5x5000-strides-5000/5028"),
        pytest.param((4, 300), (300, 0), None, id="4x300-strides-600/300"),
        pytest.param(Drawn(((1, 5), (16, 12000))), (37, 11), None, id="drawn-gaps-37/11"),
    ],
)
def test_row_strides(impl, shape, gap, parts):
    case = make_case(impl, *sides(shape, seed=7), seed=7, parts=parts, gap=gap, hints=STRIDE_HINTS)
    run_case(dataclasses.replace(case, through_strides=True))


@check("combine")
@pytest.mark.parametrize(
    "shape, parts",
    [
        pytest.param((2, 20000), 3, id="2x20000-parts=3"),
        pytest.param((3, 9000), 2, id="3x9000-parts=2"),
        pytest.param((1, 30000), 8, id="1x30000-parts=8"),
        # more parts than the row has blocks: some parts are empty, and add nothing
        pytest.param((2, 5000), 4, id="2x5000-parts=4"),
        # a share of 4096.5 columns: rounded down, then up to whole blocks, it leaves the last
        # column to no part
        pytest.param((1, 8193), 2, id="1x8193-parts=2"),
        pytest.param(Drawn(((1, 3), (4097, 30000))), 5, id="drawn-parts=5"),
        pytest.param((8, 4 * LONGEST_BLOCK + 3), 33, id="8x(4*2^20+3)", marks=needs_gpu("big")),
    ],
)
def test_combines_the_parts(impl, shape, parts):
    # a rising row: every part has a max of its own, the last part the largest
    n_rows, n_cols = sides(shape, seed=8)
    case = make_case(impl, n_rows, n_cols, seed=8, parts=parts, ramp=30.0, hints=COMBINE_HINTS)
    run_split(case, n_rows, parts)


@check("combine")
def test_shares_each_row(impl):
    # 40,000 columns in 4 parts: with any block up to 16K columns, several parts have columns.
    # The grid (n_rows, parts) is not enough: the parts must split the row between them
    n_rows, n_cols, parts = 2, 40000, 4
    case = make_case(impl, n_rows, n_cols, seed=8, parts=parts, ramp=30.0, hints=COMBINE_HINTS)
    watched = run_split(case, n_rows, parts)
    sharing = programs_on_each_row(case, watched)
    if sharing is not None and sharing < 2:
        fail(
            Kind.NOT_SPLIT,
            f"softmax(x, parts={parts}) launched {parts} programs a row, but one of them "
            f"stored every column of a row of {n_cols}: the row's columns must be shared, each "
            "part storing its own. Give part p the columns from p * part_cols on, up to the "
            "next part's first, where part_cols is the row's share, cdiv(n_cols, parts), "
            "rounded up to whole blocks.",
            case.name,
        )


@check("inside")
@pytest.mark.parametrize("shape, parts", [((4, 100), None), ((2, 4100), 2), ((3, 33), 3)])
def test_stays_inside(impl, shape, parts):
    case = make_case(impl, *shape, seed=9, parts=parts, gap=(31, 17))
    run_case(dataclasses.replace(case, past_end=True))


@check("launches")
def test_launches_kernel(impl):
    run_case(make_case(impl, 3, 5000, seed=10))
    # then a second call on other inputs: the first call's result must still be its own
    check_allocates(make_case(impl, 3, 5000, seed=10), make_case(impl, 3, 5000, seed=110))


@check("launches")
@pytest.mark.parametrize(
    "dtype, gap",
    [
        pytest.param(torch.float16, (0, 0), id="fp16"),
        pytest.param(torch.bfloat16, (0, 0), id="bf16", marks=needs_bf16()),
        # rows of a wider x: the new output is contiguous, its row stride is not x's
        pytest.param(torch.float32, (3, 0), id="x-row-stride-5003"),
    ],
)
def test_allocates_its_result(impl, dtype, gap):
    own_stride = (
        "out= was not given: the new output is contiguous and x is not, so their row strides "
        "differ: x.stride(0) for every read of x and out.stride(0) for every write, in each "
        "kernel."
    )
    hints = dataclasses.replace(HINTS, values=own_stride, nan=own_stride) if any(gap) else HINTS
    check_allocates(make_case(impl, 3, 5000, dtype, seed=10, gap=gap, hints=hints))


@check("compiles")
@pytest.mark.parametrize(
    "dtype, parts",
    [pytest.param(torch.float32, 1, id="fp32"), pytest.param(torch.float16, 3, id="fp16-parts=3")],
)
def test_compiles_for_gpu(impl, dtype, parts):
    run_case(make_case(impl, 3, 9000, dtype, seed=11, parts=parts))


@check("int64")
@pytest.mark.parametrize(
    "gap, tensor, stride",
    [
        pytest.param(
            (2**30, 0), "x", "stride_x_row", id="x-row-stride-2^30+512", marks=needs_gpu("4.3 GB x")
        ),
        pytest.param(
            (0, 2**30),
            "out",
            "stride_out_row",
            id="out-row-stride-2^30+512",
            marks=needs_gpu("4.3 GB out"),
        ),
    ],
)
def test_row_offsets_past_2_31(impl, gap, tensor, stride):
    # 3 rows of 512, the last starting 2^31 + 1024 elements in
    advice = int64_advice(tensor, stride)
    hints = dataclasses.replace(HINTS, outside=advice, unwritten=advice, values=advice)
    with big_gpu_memory(40e9):  # no local holds the case, so its buffers go back after it
        case = make_case(impl, 3, 512, torch.float16, seed=12, gap=gap, hints=hints)
        run_case(dataclasses.replace(case, through_strides=True, fault_advice=advice))


# The benchmark, against torch.softmax (the reference reads x twice, once in each kernel)
BENCH = softmax_bench(SPEC, TOLERANCES)
