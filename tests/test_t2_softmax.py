"""Graded checks for t2 · Row-wise softmax. Lesson: content/t2_softmax.md

Every case runs the learner's `softmax` on an input and an output that sit inside
canary-filled buffers (with canaries between the rows too, where the case is strided), so each
check also catches reads and writes outside the tensors, rows or columns never written and a
result computed without the kernel. The expected result is torch.softmax in float64.
"""

import dataclasses

import pytest
import torch

from drills import spec
from drills.judge.testing import (
    DTYPE_NAMES,
    Case,
    Drawn,
    Guarded,
    Hints,
    Tolerance,
    big_gpu_memory,
    check_allocates,
    checks_of,
    device,
    drawn,
    generator,
    matches,
    needs_bf16,
    needs_gpu,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    sides,
)
from drills.judge.testing.rows import ONE_HOT_FAR, int64_advice, softmax_bench

# Softmax values are at most 1 and often tiny (1/n_cols), so the check is relative: an absolute
# slack only as large as fp16's smallest step (its subnormals start at 6e-5). GPU exp is an
# approximation (ex2.approx), good to a few fp32 ulps: rtol 1e-5 leaves room for it.
TOLERANCES = {
    torch.float32: Tolerance(1e-8, 1e-5),
    torch.float16: Tolerance(6e-8, 1e-3),
    torch.bfloat16: Tolerance(1e-8, 8e-3),
}

SPEC = spec.of("t2_softmax")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="Loads and stores need mask = cols < n_cols, and each row starts at "
    "row * stride (a different stride for x and for out).",
    outside_read="Load with the same mask as the store, padding with other=-float('inf').",
    unwritten="Launch a program for every row (rounding up if a program takes several), and "
    "make the block cover the whole row: BLOCK_SIZE = triton.next_power_of_2(n_cols).",
    nan="NaN means an exp overflowed (subtract the row max first), every exp of a row "
    "underflowed to 0 and 0 / 0 followed (a max that starts above the row's values: start a "
    "running max at -inf, not 0), or padding was read (the canary between rows is NaN: check "
    "the mask and the row stride).",
    values="softmax(x)_i = exp(x_i - max(x)) / sum_j exp(x_j - max(x)), with the max and the "
    "sum taken over one whole row and nothing else.",
)


PAD_HINTS = dataclasses.replace(
    HINTS,
    values="Masked lanes must load -inf: with other=0, each padding lane adds exp(0 - max) to "
    "the sum, and a row of negative numbers gets 0 as its max.",
)
MAX_HINTS = dataclasses.replace(
    HINTS,
    nan="exp(1000) is inf in float32, and inf / inf is NaN: subtract the row max before exp. "
    "It changes nothing mathematically and keeps every exp() at most 1.",
)


STRIDE_HINTS = dataclasses.replace(
    HINTS,
    values="Row r starts at x_ptr + r * stride_x_row, which is not n_cols when x is a slice of "
    "a wider tensor; the output has its own row stride.",
)


def owner(launch, idx) -> str:
    row = idx[0]
    rows_per_program = launch.size("ROWS_PER_PROGRAM") if launch else None
    programs = launch.programs() if launch else 0
    if rows_per_program is not None:
        pid = row // rows_per_program
    elif programs and launch.args.get("n_rows") == programs:
        pid = row
    else:
        return ""
    if pid >= programs:
        return f"row {row} belongs to program {pid}, but the grid launched only {programs}"
    return f"row {row}, program {pid} of {programs}"


def rows_per_program(launch, n_rows: int) -> int | None:
    """How many rows each program takes: ROWS_PER_PROGRAM where the launch has it, else what
    a 1-D grid of this many programs implies."""
    args = launch.args if launch else {}
    rows = args.get("ROWS_PER_PROGRAM")
    if isinstance(rows, int) and rows > 0:
        return rows
    if launch and len(launch.grid) == 1 and launch.programs() > 0:
        return -(-n_rows // launch.programs())
    return None


def in_fp32(x: torch.Tensor, row_max: torch.Tensor) -> torch.Tensor:
    """Softmax with the max it is given, in float32 as a kernel computes it: where that max is
    far above a row's values, every exp() underflows to 0, and 0 / 0 is NaN."""
    e = torch.exp(x.float() - row_max.float())
    return e / e.sum(dim=1, keepdim=True)


def unrescaled_online(x: torch.Tensor, block: int) -> torch.Tensor:
    """An online softmax over blocks of `block` columns whose running sum keeps the terms it
    added under an old, smaller max."""
    x = x.float()
    running_max = torch.full((x.shape[0], 1), -torch.inf, device=x.device)
    running_sum = torch.zeros_like(running_max)
    for part in x.split(block, dim=1):
        running_max = torch.maximum(running_max, part.amax(dim=1, keepdim=True))
        running_sum += torch.exp(part - running_max).sum(dim=1, keepdim=True)
    return torch.exp(x - running_max) / running_sum


def softmax_mistake(x: torch.Tensor, dtype: torch.dtype):
    """A case's diagnose(): it recognises softmax mistakes by their results, computed from x
    with the launch's BLOCK_SIZE and rows per program where it has them: in float64, or in
    float32 for the mistakes whose exp() underflows (their NaN is part of what they leave)."""
    x = x.double()
    n_rows, n_cols = x.shape
    row_max = x.amax(dim=1, keepdim=True)
    # a mistake is recognised to 0.1%: exp2 and fp32 sums are not float64
    tol = dataclasses.replace(TOLERANCES[dtype], rtol=max(TOLERANCES[dtype].rtol, 1e-3))

    def zero_padded(block: int) -> torch.Tensor:
        # each of the block - n_cols padding lanes holds 0, so 0 may become the max
        pad_max = row_max.clamp(min=0)
        e = torch.exp(x - pad_max)
        return e / (e.sum(dim=1, keepdim=True) + (block - n_cols) * torch.exp(-pad_max))

    def one_max_per_block(rows: int) -> torch.Tensor:
        block_max = torch.cat([r.amax().expand(len(r), 1) for r in x.split(rows)])
        return in_fp32(x, block_max)

    def reduced_per_row_met_columns(rows: int) -> torch.Tensor:
        # x - tl.max(x, axis=1) without [:, None] in a square block (rows == BLOCK_SIZE):
        # blocks line up from their last axis, so row j's max, and its sum, meet column j
        parts = []
        for part in x.split(rows):
            block = torch.full((rows, rows), -torch.inf, dtype=x.dtype, device=x.device)
            block[: len(part), :n_cols] = part
            e = torch.exp(block - block.amax(dim=1)[None, :])
            parts.append((e / e.sum(dim=1)[None, :])[: len(part), :n_cols])
        return torch.cat(parts)

    def diagnose(launch, out: torch.Tensor) -> str:
        def left(candidate: torch.Tensor) -> bool:
            """Whether the mistake that computes `candidate` is what the kernel did."""
            return matches(out, candidate, tol)

        args = launch.args if launch else {}
        rows, block = rows_per_program(launch, n_rows), args.get("BLOCK_SIZE")
        if left(torch.exp(x - row_max)):
            return (
                "each row's largest value came out as 1, and the rows do not sum to 1: divide "
                "exp(x - max) by its sum over the row (tl.sum), not by its max."
            )
        if rows and rows > 1 and left(one_max_per_block(rows)):
            return (
                f"each program took one max for all of its {rows} rows, so a row far below "
                "another in its block had every exp() underflow to 0, and 0 / 0 is NaN: take "
                "each row's own max, tl.max(x, axis=1)[:, None], and its own sum (axis=1)."
            )
        if rows and rows > 1 and rows == block and left(reduced_per_row_met_columns(rows)):
            return (
                f"each row's max and sum were used as a row of {rows} values, so that row j's "
                "met column j: tl.max(x, axis=1) of a [ROWS, BLOCK_SIZE] block is one value "
                "per row, and blocks line up from their last axis (it compiles only where "
                "ROWS_PER_PROGRAM equals BLOCK_SIZE). Give it its axis back: tl.max(x, "
                "axis=1)[:, None], and the same for the sum."
            )
        if isinstance(args.get("ROWS_PER_PROGRAM"), int):
            # tl.max and tl.sum with axis=0 reduce down the columns of a [rows, BLOCK] block
            down_columns = torch.cat([torch.softmax(r, dim=0) for r in x.split(rows)])
            if left(down_columns):
                across = f"across its {rows} rows" if rows > 1 else "one element each"
                return (
                    f"the max and the sum were taken down the columns of the block (axis=0), "
                    f"{across}: reduce along each row, with axis=1."
                )
        if isinstance(block, int) and block > n_cols:
            lanes = block - n_cols
            if left(zero_padded(block)):
                return (
                    f"the {lanes} masked lanes past n_cols were loaded as 0, or as another "
                    "number that a row below it cannot beat (-1e4 is one for a row near -1e5): "
                    "each adds exp(0 - max) to the row's sum, and the padding becomes the max "
                    "of a row below it. Load them as -inf: tl.load(..., other=-float('inf'))."
                )
            if left(in_fp32(x, row_max.clamp(min=0))):
                return (
                    "a row of numbers far below 0 had 0 as its max, so every exp() underflowed "
                    f"and 0 / 0 is NaN: the max was taken over the {lanes} masked lanes past "
                    "n_cols, loaded as 0, or a running max started at 0. Load masked lanes as "
                    "-inf, tl.load(..., other=-float('inf')), and start a running max at -inf, "
                    "so that only the row's own values make its max."
                )
        if isinstance(block, int) and 0 < block < n_cols and left(unrescaled_online(x, block)):
            return (
                f"the running sum over blocks of {block} columns kept what it had added under "
                "a smaller, earlier max: when the max grows to m_new, multiply the sum by "
                "exp(m_old - m_new) before adding the new block's terms."
            )
        return ""

    return diagnose


def rows_past_the_end(tensors: dict[str, Guarded], n_rows: int, n_cols: int):
    """A case's why_outside(): touches that are all whole columns of rows past n_rows, in the
    layout of the tensor they are outside of, come from a block of rows with no row mask; the
    first columns of the one row after the last, from a last row whose columns ran on."""

    def why(launch, name: str, offsets: list[int]) -> str:
        stride = tensors[name].tensor.stride(0) if name in tensors else 0
        if not offsets or stride <= 0 or min(offsets) < 0:
            return ""
        rows = {o // stride for o in offsets}
        if min(rows) < n_rows or any(o % stride >= n_cols for o in offsets):
            return ""
        if rows == {n_rows} and len(set(offsets)) < n_cols:
            return (
                f"the elements touched are the {len(set(offsets))} that follow the last row of "
                f"`{name}`: its block ran on past n_cols = {n_cols}. Mask columns as well as "
                "rows, mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols), in the loads "
                "and in the store."
            )
        return (
            f"the elements touched are in rows {min(rows)} to {max(rows)}, past the last of the "
            f"{n_rows} rows of `{name}`: the last program's block has rows that do not exist. "
            "Mask rows as well as columns, mask = (rows[:, None] < n_rows) & (cols[None, :] < "
            "n_cols), in the loads and in the store."
        )

    return why


def make_case(
    impl,
    n_rows: int,
    n_cols: int,
    dtype: torch.dtype = torch.float32,
    *,
    seed: int = 0,
    scale: float = 1.0,
    shift: float = 0.0,
    row_shift: float = 0.0,
    late_max: bool = False,
    spike: float = 0.0,
    gap: tuple[int, int] = (0, 0),
    hints: Hints = HINTS,
) -> Case:
    """A softmax case on randn * scale + shift. row_shift moves rows apart, by -row_shift, 0
    and +row_shift in turn, so rows that share a program differ in scale; late_max adds a ramp
    along each row, so its max lies near its end; spike lifts one element near each row's end
    that far above the rest. gap puts canaries between the rows of the input and of the output
    (gap[0] and gap[1] elements), giving each its own row stride."""
    gen = generator(seed)
    x = torch.randn(n_rows, n_cols, generator=gen, device=device()) * scale + shift
    x += row_shift * (torch.arange(n_rows, device=device())[:, None] % 3 - 1)
    if late_max:
        x += torch.linspace(0, 8, n_cols, device=device())
    x[:, -3:-2] += spike
    x = x.to(dtype)
    inputs = {"x": Guarded.holding(x, row_gap=gap[0])}
    out = Guarded((n_rows, n_cols), dtype, output=True, row_gap=gap[1])
    return Case(
        name=f"{n_rows}x{n_cols} {DTYPE_NAMES[dtype]} seed={seed}"
        + (f" scale={scale:g}" if scale != 1 else "")
        + (f" shift={shift:g}" if shift else "")
        + (f" rows apart by {row_shift:g}" if row_shift else "")
        + (" max late in the row" if late_max else "")
        + (f" a spike of +{spike:g} near the row's end" if spike else "")
        + (f" row strides {n_cols + gap[0]}/{n_cols + gap[1]}" if any(gap) else ""),
        fn=impl.softmax,
        inputs=inputs,
        out=out,
        expected=torch.softmax(x.double(), dim=-1).to(dtype),
        tol=TOLERANCES[dtype],
        hints=hints,
        owner=owner,
        diagnose=softmax_mistake(x, dtype),
        why_outside=rows_past_the_end(inputs | {"out": out}, n_rows, n_cols),
    )


def gpu(shape: tuple[int, int], why: str = "too many programs for the CPU"):
    return pytest.param(shape, id=f"{shape[0]}x{shape[1]}", marks=needs_gpu(why))


def shapes(*pairs: tuple[int, int]) -> list:
    return [pytest.param(p, id=f"{p[0]}x{p[1]}") for p in pairs]


# rows near a multiple of the rows a program may take, columns near a power-of-two block
ROWS, COLS = (1, 40), (16, 2048)


@check("softmax")
@pytest.mark.parametrize(
    "shape", [*shapes((16, 1024), (8, 128)), drawn(ROWS, COLS), gpu((4096, 4096))]
)
def test_softmax_values(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=1), seed=1))


@check("softmax")
def test_softmax_twice(impl):
    # two calls in a row: what the first leaves behind must not change the second's result
    run_twice(make_case(impl, 10, 256, seed=1))


@check("padding")
@pytest.mark.parametrize(
    "shape, shift, spike",
    [
        *(pytest.param(p, -4.0, 0.0, id=f"{p[0]}x{p[1]}") for p in ((37, 781), (8, 1000), (3, 17))),
        pytest.param((5, 300), -300.0, 0.0, id="5x300-shift-300"),
        # padding with a finite number (-1e4, fp16's -65504) instead of -inf: it wins the max of
        # a row below it
        pytest.param((5, 300), -1e5, 0.0, id="5x300-shift-1e5"),
        # and -1e30, "minus infinity" to some: rows below that too, each one-hot (ONE_HOT_FAR)
        pytest.param((5, 300), *ONE_HOT_FAR, id="5x300-one-hot-near-2^120"),
        pytest.param(Drawn((ROWS, (17, 2000)), offsets=(-1, 1, 3)), -300.0, 0.0, id="drawn"),
        pytest.param((1823, 781), -4.0, 0.0, id="1823x781", marks=needs_gpu("many programs")),
    ],
)
def test_pads_with_minus_inf(impl, shape, shift, spike):
    # all-negative rows: with 0 padding, 0 also becomes the row max; taken over 0-padded lanes
    # and nothing else, that max is harmless near 0, but far below it every exp() underflows
    case = make_case(impl, *sides(shape, seed=2), seed=2, shift=shift, spike=spike, hints=PAD_HINTS)
    if shift < -100:
        case.tol = NEAR_1000  # as in the max check
    if shift < -1e4:
        # fp32 values near -1e5 are 0.008 apart: a kernel that scales x for exp2 before it
        # subtracts the max is right to 1%, and a finite padding makes every output 0
        case.tol = Tolerance(1e-8, 1e-2)
    run_case(case)


# near 1000, fp32 steps are 6e-5 apart: a kernel that scales for exp2 before it subtracts the
# max is right to 1e-4, and forgetting the max gives NaN, not 1e-4
NEAR_1000 = Tolerance(1e-8, 5e-4)


@check("max")
@pytest.mark.parametrize(
    "shape, dtype, scale, shift, row_shift",
    [
        pytest.param((5, 300), torch.float32, 30.0, 1000.0, 0.0, id="fp32-shift+1000"),
        pytest.param((4, 1024), torch.float32, 30.0, -1000.0, 0.0, id="fp32-shift-1000"),
        pytest.param((6, 200), torch.float16, 8.0, 100.0, 0.0, id="fp16-shift+100"),
        # rows that share a program: each needs its own max
        pytest.param((12, 300), torch.float32, 1.0, 0.0, 200.0, id="fp32-rows-apart-by-200"),
        pytest.param(Drawn(((6, 40), COLS)), torch.float32, 1.0, 0.0, 200.0, id="drawn-rows-apart"),
    ],
)
def test_subtracts_row_max(impl, shape, dtype, scale, shift, row_shift):
    case = make_case(
        impl,
        *sides(shape, seed=3),
        dtype,
        seed=3,
        scale=scale,
        shift=shift,
        row_shift=row_shift,
        hints=MAX_HINTS,
    )
    if dtype == torch.float32:
        case.tol = NEAR_1000
    run_case(case)


@check("strides")
@pytest.mark.parametrize(
    "shape, gap",
    [
        pytest.param((9, 781), (243, 67), id="9x781-strides-1024/848"),
        pytest.param((5, 64), (64, 0), id="5x64-strides-128/64"),
        pytest.param((7, 100), (0, 28), id="7x100-strides-100/128"),
        pytest.param(Drawn((ROWS, COLS)), (37, 11), id="drawn-gaps-37/11"),
    ],
)
def test_row_strides(impl, shape, gap):
    case = make_case(impl, *sides(shape, seed=4), seed=4, gap=gap, hints=STRIDE_HINTS)
    run_case(dataclasses.replace(case, through_strides=True))


@check("strides")
def test_same_shape_other_strides(impl):
    # the same shape again, with other row strides: a kernel compiled for the first call's
    # arguments (a warmup kept by shape) is specialised for strides that are multiples of 16
    run_case(make_case(impl, 9, 256, seed=4))
    case = make_case(impl, 9, 256, seed=4, gap=(3, 5), hints=STRIDE_HINTS)
    run_case(dataclasses.replace(case, through_strides=True))


@check("rows")
@pytest.mark.parametrize(
    "shape",
    [
        *shapes((37, 64), (63, 100), (1, 300), (2, 256)),
        drawn((1, 70), (16, 300)),
        # more rows than a grid capped at 65535 programs (the limit of axes 1 and 2, not of 0)
        # launches at one row a program
        gpu((70_000, 8)),
    ],
)
def test_every_row(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=5), seed=5))


@check("rows")
def test_every_row_in_every_autotune_config(impl):
    # a kernel autotuned over its block or its rows per program may run with any config: the
    # grid must be a function of the one it got, lambda META: (triton.cdiv(n_rows,
    # META["ROWS_PER_PROGRAM"]),)
    run_in_every_autotune_config(make_case(impl, 37, 781, seed=5))


@check("narrow")
@pytest.mark.parametrize("shape", shapes((1, 1), (3, 1), (6, 2)))
def test_tiny_rows(impl, shape):
    run_case(make_case(impl, *shape, seed=6))


@check("dtypes")
@pytest.mark.parametrize(
    "dtype, scale",
    [
        pytest.param(torch.float16, 1.0, id="fp16"),
        pytest.param(torch.bfloat16, 1.0, id="bf16", marks=needs_bf16()),
        # rows spread over +-30: many outputs are below 6e-5, where fp16 has only subnormals,
        # so a bf16 result that passed through fp16 loses them
        pytest.param(torch.bfloat16, 8.0, id="bf16-scale-8", marks=needs_bf16()),
        # values past fp16's largest (65504): a bf16 input read through fp16 overflows
        pytest.param(torch.bfloat16, 1e5, id="bf16-scale-1e5", marks=needs_bf16()),
    ],
)
def test_dtypes(impl, dtype, scale):
    run_case(make_case(impl, 13, 781, dtype, seed=7, scale=scale))


@check("wide")
@pytest.mark.parametrize(
    "shape, late_max, spike",
    [
        pytest.param((2, 5000), False, 0.0, id="2x5000"),
        pytest.param((3, 4097), False, 0.0, id="3x4097"),
        # past a block capped at 16K or 32K columns without a loop over the rest of the row
        pytest.param((2, 40000), False, 0.0, id="2x40000"),
        # a kernel that walks the row in blocks meets a larger max in every block
        pytest.param((2, 9000), True, 0.0, id="2x9000-max-late"),
        pytest.param(
            Drawn(((2, 2), (4097, 9000)), near=(1024, 2048, 4096), offsets=(-1, 1, 5)),
            True,
            0.0,
            id="drawn-max-late",
        ),
        # a max taken over every block but the last is fine while the last holds nothing more
        # than 88 above the rest (exp(88) is fp32's largest): these rows hold one, in their last
        # block whether the blocks divide the row or not
        pytest.param((2, 9000), False, 100.0, id="2x9000-spike-at-the-end"),
        pytest.param((2, 8192), False, 100.0, id="2x8192-spike-at-the-end"),
        # MAX_COLS itself, the longest row the drill's API takes: one row on the CPU
        pytest.param((1, 65536), False, 0.0, id="1x65536"),
        pytest.param((64, 65536), False, 0.0, id="64x65536", marks=needs_gpu("too large")),
    ],
)
def test_long_rows(impl, shape, late_max, spike):
    run_case(make_case(impl, *sides(shape, seed=8), seed=8, late_max=late_max, spike=spike))


@check("inside")
@pytest.mark.parametrize("shape", [*shapes((4, 100), (2, 33)), drawn(ROWS, COLS)])
def test_stays_inside(impl, shape):
    case = make_case(impl, *sides(shape, seed=9), seed=9, gap=(31, 17))
    run_case(dataclasses.replace(case, past_end=True))


@check("launches")
def test_launches_kernel(impl):
    run_case(make_case(impl, 10, 300, seed=10))
    # then a second call on other inputs: the first call's result must still be its own
    check_allocates(make_case(impl, 10, 300, seed=10), make_case(impl, 10, 300, seed=110))


@check("launches")
@pytest.mark.parametrize(
    "dtype, gap",
    [
        pytest.param(torch.float16, (0, 0), id="fp16"),
        pytest.param(torch.bfloat16, (0, 0), id="bf16", marks=needs_bf16()),
        # rows of a wider x: the new output is contiguous, its row stride is not x's
        pytest.param(torch.float32, (3, 0), id="x-row-stride-303"),
    ],
)
def test_allocates_its_result(impl, dtype, gap):
    own_stride = (
        "out= was not given: the new output is contiguous, so its row stride is out.stride(0) "
        "(n_cols), not x.stride(0): give the kernel each tensor's own row stride."
    )
    hints = dataclasses.replace(HINTS, values=own_stride, nan=own_stride) if any(gap) else HINTS
    check_allocates(make_case(impl, 10, 300, dtype, seed=10, gap=gap, hints=hints))


@check("compiles")
@pytest.mark.parametrize(
    "dtype", [pytest.param(torch.float32, id="fp32"), pytest.param(torch.float16, id="fp16")]
)
def test_compiles_for_gpu(impl, dtype):
    run_case(make_case(impl, 6, 781, dtype, seed=11))


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
        case = make_case(impl, 3, 512, torch.float16, seed=4, gap=gap, hints=hints)
        run_case(dataclasses.replace(case, through_strides=True, fault_advice=advice))


# The benchmark: rows of 64K are split across programs on a GPU (t2_softmax_split.py)
BENCH = softmax_bench(SPEC, TOLERANCES, reference="t2_softmax_split")
