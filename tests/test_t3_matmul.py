"""Graded checks for t3 · Tiled matmul. Lesson: content/t3_matmul.md

Every case runs the learner's `matmul` on a and b inside canary-filled buffers (NaN after the
last element, so a load past the end of b or of a's last row shows up as NaN) and an output
prefilled with a canary, so each check also catches writes outside c, tiles never written and
a result computed without the kernel. The expected result is a @ b in float64, rounded to fp16.
"""

import dataclasses

import pytest
import torch

from drills import spec
from drills.bench import Bench, Shape, matmul_bytes, matmul_flops
from drills.judge.testing import (
    MANY_TILES,
    Case,
    Guarded,
    Hints,
    Tolerance,
    big_gpu_memory,
    check_allocates,
    checks_of,
    device,
    dot_product_tolerance,
    drawn,
    generator,
    k_loop_mistake,
    matmul_tile,
    needs_gpu,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    sides,
    small_integers,
)

# c is fp16: its rounding (about 5e-4 relative) dominates the fp32 accumulator's error. Each
# case measures the relative part against |a| @ |b| (dot_product_tolerance), atol covers the
# rest; entries of randn products are around sqrt(K), wrong ones off by as much.
TOLERANCE = Tolerance(1e-2, 2e-3)
EXACT = Tolerance(0, 0)  # sums of small integers: fp16 holds them exactly

SPEC = spec.of("t3_matmul")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="Store with mask = (rows < M) & (cols < N): the last row and column of tiles run "
    "past the edges of c.",
    outside_read="Each load's mask must stop at its tensor's end: rows < M and ks < K for a, ks "
    "< K and cols < N for b, where ks = k * BLOCK_K + tl.arange(0, BLOCK_K) are the lanes' own "
    "indices along K. A mask of tl.arange(0, BLOCK_K) against K - k, where k counts blocks "
    "rather than elements, lets the last block run past K.",
    unwritten="Every tile of c needs a program: grid = (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)), "
    "and each program must store its whole tile.",
    nan="The padding after a and b holds NaN: a load past the end of K (or of the last row) "
    "was not masked.",
    values="Tile (pid_m, pid_n) is rows pid_m * BLOCK_M + arange(BLOCK_M) and columns "
    "pid_n * BLOCK_N + arange(BLOCK_N); a[i, k] is at i * K + k and b[k, j] at k * N + j.",
    near="Accumulate in float32 (acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)) and "
    "convert to fp16 once, at the store: an fp16 sum rounds at every step of K.",
)
K_MASK_HINTS = dataclasses.replace(
    HINTS,
    values="K is not a multiple of BLOCK_K: the last step's ks run past K. Mask them "
    "(ks < K) in both loads, with other=0.0, so they add nothing.",
)
K_LOOP_HINTS = dataclasses.replace(
    HINTS,
    values="The K loop must run tl.cdiv(K, BLOCK_K) times: K // BLOCK_K skips the last, "
    "partial block of K.",
)
FP32_HINTS = dataclasses.replace(
    HINTS,
    values="Accumulate in float32: acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32), "
    "acc = tl.dot(a, b, acc), and convert to fp16 once, at the store. An fp16 sum of K "
    "products rounds at every step.",
)
STRIDE_HINTS = dataclasses.replace(
    HINTS,
    values="Row i of a starts at i * K (a has K columns) and row k of b at k * N (b has N "
    "columns): square tests cannot tell K, M and N apart, these shapes can.",
)
RESET_HINTS = dataclasses.replace(
    HINTS,
    values="Set acc to zeros once, before the K loop: zeroing it inside the loop keeps only "
    "the last block of K.",
)


def int64_advice(tensor: str, product: str) -> str:
    """What an int32 offset into `tensor` does once its last rows start past 2^31 elements."""
    return (
        f"{tensor}'s last rows start past 2^31 elements, where {product} wraps negative in "
        "int32: compute row indices in int64, rows = pid_m.to(tl.int64) * BLOCK_M + "
        "tl.arange(0, BLOCK_M)."
    )


def owner(launch, idx) -> str:
    bm, bn = (launch.size(name) for name in ("BLOCK_M", "BLOCK_N")) if launch else (None, None)
    if bm is None or bn is None:
        return ""
    tile = (idx[0] // bm, idx[1] // bn)
    grid = launch.grid + (1,) * (2 - len(launch.grid))
    if len(launch.grid) == 2 and (tile[0] >= grid[0] or tile[1] >= grid[1]):
        return f"tile {tile}, outside the {grid[0]} x {grid[1]} grid"
    return f"tile (pid_m, pid_n) = {tile}"


def make_case(
    impl,
    M: int,
    N: int,
    K: int,
    *,
    seed: int = 0,
    positive: bool = False,
    integers: bool = False,
    hints: Hints = HINTS,
    tol: Tolerance = TOLERANCE,
) -> Case:
    gen = generator(seed)
    draw = small_integers if integers else torch.rand if positive else torch.randn
    a = draw(M, K, generator=gen, device=device()).half()
    b = draw(K, N, generator=gen, device=device()).half()
    operands = (Guarded.holding(a), Guarded.holding(b))
    return Case(
        name=f"M={M} N={N} K={K} seed={seed}"
        + (" rand" if positive else "")
        + (" small integers, exact" if integers else ""),
        fn=impl.matmul,
        inputs=dict(zip("ab", operands, strict=True)),
        out=Guarded((M, N), torch.float16, output=True),
        expected=(a.double() @ b.double()).half(),
        tol=EXACT if integers else dot_product_tolerance(tol, a, b),
        hints=hints,
        owner=owner,
        tile=matmul_tile,
        diagnose=k_loop_mistake(a, b, tol, "BLOCK_K", operands),
    )


def mnk(*triples: tuple[int, int, int], gpu: tuple = ()) -> list:
    cpu_cases = [pytest.param(t, id="x".join(map(str, t))) for t in triples]
    gpu_cases = [pytest.param(t, id="x".join(map(str, t)), marks=needs_gpu("large")) for t in gpu]
    return cpu_cases + gpu_cases


# drawn sides: a few tiles of the interpreter's 32 x 32 (or the learner's own) blocks
SIDE, LONG_K = (16, 160), (16, 256)


@check("multiplies")
@pytest.mark.parametrize(
    "shape",
    [
        *mnk((256, 128, 32), (128, 128, 64), gpu=[(2048,) * 3, (*MANY_TILES, 64)]),
        drawn(SIDE, SIDE, SIDE, near=(32, 64), offsets=(0,)),
        pytest.param((64, 64, 64, "integers"), id="64x64x64-integers-exact"),
    ],
)
def test_multiplies(impl, shape):
    M, N, K, *integers = sides(shape, seed=1)
    run_case(make_case(impl, M, N, K, seed=1, integers=bool(integers)))


@check("multiplies")
def test_multiplies_twice(impl):
    # two calls in a row: what the first leaves behind (a workspace) must not change the second
    run_twice(make_case(impl, 256, 256, 64, seed=1))


@check("k_tail")
@pytest.mark.parametrize(
    "shape",
    [
        *mnk((64, 64, 129), (64, 64, 45), (128, 32, 100), gpu=[(*MANY_TILES, 45)]),
        # K shorter than 16, tl.dot's least block of K: the block stays 16 or more, masked
        *mnk((64, 64, 8)),
        drawn(SIDE, SIDE, LONG_K, offsets=(-3, 1, 5)),
    ],
)
def test_k_tail(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=2), seed=2, hints=K_MASK_HINTS))


@check("edges")
@pytest.mark.parametrize(
    "shape",
    [
        *mnk(
            (200, 150, 32),
            (70, 50, 64),
            (129, 257, 16),
            gpu=[(1000, 3000, 2000), (*MANY_TILES, 48)],
        ),
        drawn(SIDE, SIDE, SIDE, offsets=(-1, 1, 3)),
    ],
)
def test_mn_edges(impl, shape):
    # rows of a past M and columns of b past N lie past their ends: a GPU faults on them
    case = make_case(impl, *sides(shape, seed=3), seed=3)
    run_case(dataclasses.replace(case, past_end=True))


@check("fp32")
@pytest.mark.parametrize("shape", mnk((16, 16, 4096), (16, 32, 2048)))
def test_fp32_accumulator(impl, shape):
    # rand (not randn): positive products, so the sums grow large and an fp16 running sum
    # loses its low bits at every step; with fp32 the result is within 1 fp16 ulp
    run_case(make_case(impl, *shape, seed=4, positive=True, hints=FP32_HINTS))


@check("row_lengths")
@pytest.mark.parametrize(
    "shape", [*mnk((100, 200, 32), (200, 100, 32), (64, 32, 128)), drawn(SIDE, SIDE, SIDE)]
)
def test_row_strides(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=5), seed=5, hints=STRIDE_HINTS))


@check("grid")
@pytest.mark.parametrize(
    "shape",
    [*mnk((129, 129, 16), (257, 65, 16), (1, 1, 16)), drawn(SIDE, SIDE, (16, 16), offsets=(1,))],
)
def test_grid_covers_c(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=6), seed=6))


@check("grid")
def test_grid_covers_c_in_every_autotune_config(impl):
    # T3 asks for no autotune, but a kernel that has one may run with any of its configs: the
    # grid must be a function of the one it got, as T4 teaches
    run_in_every_autotune_config(make_case(impl, 129, 129, 48, seed=6))


@check("acc_once")
@pytest.mark.parametrize("shape", mnk((64, 64, 256), (32, 96, 256)))
def test_accumulator_reset(impl, shape):
    run_case(make_case(impl, *shape, seed=7, hints=RESET_HINTS))


@check("last_k_block")
@pytest.mark.parametrize(
    "shape",
    [
        # 129: one element past a multiple of every power-of-two BLOCK_K up to 128, which a
        # loop bound of cdiv(K - 1, BLOCK_K) leaves out
        *mnk((64, 64, 80), (128, 64, 16), (32, 32, 200), (32, 32, 129)),
        drawn(SIDE, SIDE, LONG_K, offsets=(-1, 7)),
    ],
)
def test_k_loop_rounds_up(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=8), seed=8, hints=K_LOOP_HINTS))


@check("launches")
def test_launches_kernel(impl):
    run_case(make_case(impl, 96, 80, 64, seed=9))
    # then a second call on other inputs: the first call's result must still be its own
    check_allocates(make_case(impl, 96, 80, 64, seed=9), make_case(impl, 96, 80, 64, seed=99))


@check("compiles")
def test_compiles_for_gpu(impl):
    run_case(make_case(impl, 96, 80, 48, seed=10))


def past_2_31_case(impl, M: int, N: int, K: int, advice: str) -> Case:
    """a [M, K] @ b [K, N] where a or c has 2^31 elements or more: its last rows start past
    2^31, where an int32 offset wraps. Small integers keep a @ b exact, so torch's own product
    is the answer (float64 copies would take tens of GB)."""
    gen = generator(11)
    a = small_integers(M, K, generator=gen, device=device()).half()
    b = small_integers(K, N, generator=gen, device=device()).half()
    return Case(
        name=f"M={M} N={N} K={K} seed=11 small integers, exact",
        fn=impl.matmul,
        inputs={"a": Guarded.holding(a), "b": Guarded.holding(b)},
        out=Guarded((M, N), torch.float16, output=True),
        expected=a @ b,
        tol=EXACT,
        hints=dataclasses.replace(HINTS, outside=advice, unwritten=advice, values=advice),
        owner=owner,
        tile=matmul_tile,
        fault_advice=advice,
    )


@check("int64")
@pytest.mark.parametrize(
    "shape, advice",
    [
        pytest.param(
            (2**25 + 64, 16, 64),
            int64_advice("a", "rows * K"),
            id="(2^25+64)x16x64",
            marks=needs_gpu("4.3 GB a"),
        ),
        # a and b small enough, c not: an int32 offset into the output alone
        pytest.param(
            (2**25 + 64, 64, 16),
            int64_advice("c", "rows * N"),
            id="(2^25+64)x64x16",
            marks=needs_gpu("4.3 GB c"),
        ),
    ],
)
def test_row_offsets_past_2_31(impl, shape, advice):
    with big_gpu_memory(48e9):  # no local holds the case, so its buffers go back after it
        run_case(past_2_31_case(impl, *shape, advice))


def bench_inputs(shape: Shape) -> tuple[torch.Tensor, torch.Tensor]:
    m, n, k = shape.params["mnk"]
    return (
        torch.randn(m, k, device="cuda", dtype=torch.float16),
        torch.randn(k, n, device="cuda", dtype=torch.float16),
    )


def _shape(m: int, n: int, k: int) -> Shape:
    label = f"{m}^3" if m == n == k else f"{m}x{n}x{k}"
    return Shape(label, float(m * n * k) ** (1 / 3), {"mnk": (m, n, k)})


# The benchmark, over the shapes the spec declares (separate from the test shapes)
BENCH = Bench(
    entry="matmul",
    shapes=[_shape(*p["mnk"]) for p in SPEC.bench_shapes],
    make_inputs=bench_inputs,
    torch_fn=torch.matmul,
    torch_name="cuBLAS (torch.matmul)",
    unit="TFLOP/s",
    flops=matmul_flops,
    bytes_moved=matmul_bytes,
    compute="tensor",
    tolerance=lambda s: TOLERANCE,
    size_name="(M N K)^(1/3)",
)
