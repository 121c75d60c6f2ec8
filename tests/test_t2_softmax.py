"""Graded checks for t2 · Row-wise softmax. Lesson: content/t2_softmax.md

Every case runs the learner's `softmax` on an input and an output that sit inside
canary-filled buffers (with canaries between the rows too, where the case is strided), so each
check also catches reads and writes outside the tensors, rows or columns never written and a
result computed without the kernel. The expected result is torch.softmax in float64.
"""

import dataclasses

import pytest
import torch

from drills.bench import Bench, Shape
from drills.judge.gpu_compile import check_compiles
from drills.judge.testing import (
    DTYPE_NAMES,
    Case,
    Guarded,
    Hints,
    Tolerance,
    check,
    check_allocates,
    compare,
    device,
    generator,
    needs_bf16,
    needs_gpu,
    run_case,
)

# Softmax values are at most 1 and often tiny (1/n_cols), so the check is relative: an absolute
# slack only as large as fp16's smallest step (its subnormals start at 6e-5). GPU exp is an
# approximation (ex2.approx), good to a few fp32 ulps: rtol 1e-5 leaves room for it.
TOLERANCES = {
    torch.float32: Tolerance(1e-8, 1e-5),
    torch.float16: Tolerance(6e-8, 1e-3),
    torch.bfloat16: Tolerance(1e-8, 8e-3),
}

HINTS = Hints(
    outside="Loads and stores need mask = cols < n_cols, and each row starts at "
    "row * stride (a different stride for x and for out).",
    outside_read="Load with the same mask as the store, padding with other=-float('inf').",
    unwritten="Launch a program for every row (rounding up if a program takes several), and "
    "make the block cover the whole row: BLOCK_SIZE = triton.next_power_of_2(n_cols).",
    nan="NaN means an exp overflowed (subtract the row max first) or padding was read "
    "(the canary between rows is NaN: check the mask and the row stride).",
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
    rows_per_program = launch.args.get("ROWS_PER_PROGRAM") if launch else None
    programs = launch.programs() if launch else 0
    if isinstance(rows_per_program, int):
        pid = row // rows_per_program
    elif programs and launch.args.get("n_rows") == programs:
        pid = row
    else:
        return ""
    if pid >= programs:
        return f"row {row} belongs to program {pid}, but the grid launched only {programs}"
    return f"row {row}, program {pid} of {programs}"


def softmax_mistake(x: torch.Tensor, dtype: torch.dtype):
    """A case's diagnose(): it recognises three softmax mistakes by their results, computed
    from x in float64 with the launch's BLOCK_SIZE and ROWS_PER_PROGRAM where it has them."""
    x = x.double()
    n_cols = x.shape[1]
    row_max = x.amax(dim=1, keepdim=True)
    # a mistake is recognised to 0.1%: exp2 and fp32 sums are not float64
    tol = dataclasses.replace(TOLERANCES[dtype], rtol=max(TOLERANCES[dtype].rtol, 1e-3))

    def zero_padded(block: int) -> torch.Tensor:
        # each of the block - n_cols padding lanes holds 0, so 0 may become the max
        pad_max = row_max.clamp(min=0)
        e = torch.exp(x - pad_max)
        return e / (e.sum(dim=1, keepdim=True) + (block - n_cols) * torch.exp(-pad_max))

    def diagnose(launch, out: torch.Tensor) -> str:
        def matches(candidate: torch.Tensor) -> bool:
            return compare(out, candidate.to(out.dtype), tol) is None

        args = launch.args if launch else {}
        rows, block = args.get("ROWS_PER_PROGRAM"), args.get("BLOCK_SIZE")
        if matches(torch.exp(x - row_max)):
            return (
                "each row's largest value came out as 1, and the rows do not sum to 1: divide "
                "exp(x - max) by its sum over the row (tl.sum), not by its max."
            )
        if isinstance(rows, int) and rows > 0:
            # tl.max and tl.sum with axis=0 reduce down the columns of a [rows, BLOCK] block
            down_columns = torch.cat([torch.softmax(r, dim=0) for r in x.split(rows)])
            if matches(down_columns):
                across = f"across its {rows} rows" if rows > 1 else "one element each"
                return (
                    f"the max and the sum were taken down the columns of the block (axis=0), "
                    f"{across}: reduce along each row, with axis=1."
                )
        if isinstance(block, int) and block > n_cols and matches(zero_padded(block)):
            return (
                f"the {block - n_cols} masked lanes past n_cols were loaded as 0: each adds "
                "exp(0 - max) to the row's sum, and 0 becomes the max of a row of negative "
                "numbers. Load them as -inf: tl.load(..., other=-float('inf'))."
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
    scale: float = 1.0,
    shift: float = 0.0,
    gap: tuple[int, int] = (0, 0),
    hints: Hints = HINTS,
) -> Case:
    """A softmax case on randn * scale + shift; gap puts canaries between the rows of the
    input and of the output (gap[0] and gap[1] elements), giving each its own row stride."""
    gen = generator(seed)
    x = (torch.randn(n_rows, n_cols, generator=gen, device=device()) * scale + shift).to(dtype)
    return Case(
        name=f"{n_rows}x{n_cols} {DTYPE_NAMES[dtype]} seed={seed}"
        + (f" scale={scale:g}" if scale != 1 else "")
        + (f" shift={shift:g}" if shift else "")
        + (f" row strides {n_cols + gap[0]}/{n_cols + gap[1]}" if any(gap) else ""),
        fn=impl.softmax,
        inputs={"x": Guarded.holding(x, row_gap=gap[0])},
        out=Guarded((n_rows, n_cols), dtype, output=True, row_gap=gap[1]),
        expected=torch.softmax(x.double(), dim=-1).to(dtype),
        tol=TOLERANCES[dtype],
        hints=hints,
        owner=owner,
        diagnose=softmax_mistake(x, dtype),
    )


def gpu(shape: tuple[int, int], why: str = "too many programs for the CPU"):
    return pytest.param(shape, id=f"{shape[0]}x{shape[1]}", marks=needs_gpu(why))


def shapes(*pairs: tuple[int, int]) -> list:
    return [pytest.param(p, id=f"{p[0]}x{p[1]}") for p in pairs]


@check("computes a row-wise softmax", points=10)
@pytest.mark.parametrize("shape", [*shapes((16, 1024), (8, 128)), gpu((4096, 4096))])
def test_softmax_values(impl, shape):
    run_case(make_case(impl, *shape, seed=1))


@check("pads masked lanes with -inf (rows that are not a power of two)", points=15)
@pytest.mark.parametrize("shape", [*shapes((37, 781), (8, 1000), (3, 17)), gpu((1823, 781))])
def test_pads_with_minus_inf(impl, shape):
    # all-negative rows: with 0 padding, 0 also becomes the row max
    run_case(make_case(impl, *shape, seed=2, shift=-4.0, hints=PAD_HINTS))


@check("subtracts the row max (values near 1000 do not overflow)", points=10)
@pytest.mark.parametrize(
    "shape, dtype, scale, shift",
    [
        pytest.param((5, 300), torch.float32, 30.0, 1000.0, id="fp32-shift+1000"),
        pytest.param((4, 1024), torch.float32, 30.0, -1000.0, id="fp32-shift-1000"),
        pytest.param((6, 200), torch.float16, 8.0, 100.0, id="fp16-shift+100"),
    ],
)
def test_subtracts_row_max(impl, shape, dtype, scale, shift):
    case = make_case(impl, *shape, dtype, seed=3, scale=scale, shift=shift, hints=MAX_HINTS)
    if dtype == torch.float32:
        # near 1000, fp32 steps are 6e-5 apart: a kernel that scales for exp2 before it
        # subtracts the max is right to 1e-4, and forgetting the max gives NaN, not 1e-4
        case.tol = Tolerance(1e-8, 5e-4)
    run_case(case)


@check("follows the row strides of x and out (rows of a wider tensor)", points=15)
@pytest.mark.parametrize(
    "shape, gap",
    [
        pytest.param((9, 781), (243, 67), id="9x781-strides-1024/848"),
        pytest.param((5, 64), (64, 0), id="5x64-strides-128/64"),
        pytest.param((7, 100), (0, 28), id="7x100-strides-100/128"),
    ],
)
def test_row_strides(impl, shape, gap):
    case = make_case(impl, *shape, seed=4, gap=gap, hints=STRIDE_HINTS)
    run_case(dataclasses.replace(case, through_strides=True))


@check("writes every row (row counts that do not divide evenly)", points=10)
@pytest.mark.parametrize("shape", shapes((37, 64), (63, 100), (1, 300), (2, 256)))
def test_every_row(impl, shape):
    run_case(make_case(impl, *shape, seed=5))


@check("handles rows of 1 and 2 columns", points=5)
@pytest.mark.parametrize("shape", shapes((1, 1), (3, 1), (6, 2)))
def test_tiny_rows(impl, shape):
    run_case(make_case(impl, *shape, seed=6))


@check("keeps the input dtype (fp16; bf16 on a GPU)", points=10)
@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(torch.float16, id="fp16"),
        pytest.param(torch.bfloat16, id="bf16", marks=needs_bf16()),
    ],
)
def test_dtypes(impl, dtype):
    run_case(make_case(impl, 13, 781, dtype, seed=7))


@check("covers rows longer than 4096 columns with one block", points=10)
@pytest.mark.parametrize("shape", [*shapes((2, 5000), (3, 4097)), gpu((64, 65536))])
def test_long_rows(impl, shape):
    run_case(make_case(impl, *shape, seed=8))


@check("stays inside its tensors (no stray loads or stores)", points=5)
@pytest.mark.parametrize("shape", shapes((4, 100), (2, 33)))
def test_stays_inside(impl, shape):
    run_case(make_case(impl, *shape, seed=9, gap=(31, 17)))


@check("launches its Triton kernel (no torch softmax) and allocates its result", points=5)
def test_launches_kernel(impl):
    run_case(make_case(impl, 10, 300, seed=10))
    check_allocates(make_case(impl, 10, 300, seed=10))


@check("compiles for a GPU (sm_90)", points=5)
@pytest.mark.parametrize(
    "dtype", [pytest.param(torch.float32, id="fp32"), pytest.param(torch.float16, id="fp16")]
)
def test_compiles_for_gpu(impl, dtype):
    check_compiles(make_case(impl, 6, 781, dtype, seed=11))


def bench_inputs(shape: Shape) -> tuple[torch.Tensor]:
    p = shape.params
    return (torch.randn(p["rows"], p["cols"], device="cuda", dtype=p["dtype"]),)


def _bench_shapes() -> list[Shape]:
    pairs = [(4096, 256), (4096, 1024), (4096, 4096), (4096, 16384), (1024, 65536)]
    return [
        Shape(
            f"{DTYPE_NAMES[dtype]} {m}x{n}",
            n,
            {"rows": m, "cols": n, "dtype": dtype},
            series=DTYPE_NAMES[dtype],
        )
        for dtype in (torch.float32, torch.float16)
        for m, n in pairs
    ]


# Benchmark shapes, separate from the test shapes: those of the H200 baselines.
BENCH = Bench(
    entry="softmax",
    shapes=_bench_shapes(),
    make_inputs=bench_inputs,
    torch_fn=lambda x: torch.softmax(x, dim=-1),
    torch_name="torch.softmax",
    unit="GB/s",
    # read x once, write the result once
    work=lambda s: 2 * s.params["rows"] * s.params["cols"] * s.params["dtype"].itemsize,
    tolerance=lambda s: TOLERANCES[s.params["dtype"]],
    size_name="columns per row",
)
