"""Graded checks for t1 · Vector add. Lesson: content/t1_add.md

Every case runs the learner's `add` on inputs and an output that sit inside canary-filled
buffers, so each check also catches writes outside the output, elements never written and a
result computed without the kernel; the check's own name says what its sizes are chosen to prove.
"""

import dataclasses

import pytest
import torch

from drills import spec
from drills.bench import Bench, Shape
from drills.judge.testing import (
    DTYPE_NAMES,
    TOLERANCES,
    Case,
    Guarded,
    Hints,
    big_gpu_memory,
    check_allocates,
    checks_of,
    drawn,
    generator,
    large_on_the_interpreter,
    needs_bf16,
    needs_gpu,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    sides,
)

SPEC = spec.of("t1_add")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="The last program's block runs past n_elements: store with mask=offs < n_elements.",
    unwritten="Launch enough programs to cover every element, rounding up: "
    "grid = (triton.cdiv(n_elements, BLOCK_SIZE),).",
    nan="The padding around x and y holds NaN: an unmasked load read past the end of an input.",
    values="Each program handles offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE) and stores "
    "x + y at those same offsets.",
)
DTYPE_HINTS = dataclasses.replace(
    HINTS,
    values="Add in the inputs' own dtype: converting to float32 first rounds integers "
    "above 2^24 and fp64 values to fp32's 24 bits, and tl.store converts whatever it is "
    "given to the output's dtype.",
)


def owner(launch, idx) -> str:
    block = launch.size("BLOCK_SIZE") if launch else None
    if block is None:
        return ""
    pid, programs = idx[0] // block, launch.programs()
    if pid >= programs:
        return f"it falls in block {pid}, but the grid launched only {programs} programs"
    return f"program {pid} of {programs}, BLOCK_SIZE={block}"


def why_unwritten(launch, unwritten: torch.Tensor) -> str:
    """What the unwritten elements say: a grid too small for them, or, when the grid had
    programs enough, offsets without the block start (pid + arange), which write only the
    first programs - 1 + BLOCK_SIZE."""
    block = launch.size("BLOCK_SIZE") if launch else None
    if block is None:
        return ""
    if launch.programs() * block < unwritten.numel():
        # 65535 is CUDA's limit for a grid's y and z axes, which some take for x's
        cap = (
            " 65535 programs is the most a grid may have along axes 1 and 2; along axis 0 it "
            "may have 2^31 - 1."
            if launch.programs() == 65535
            else ""
        )
        return (
            f"The grid's {launch.programs()} programs of {block} elements cover "
            f"{launch.programs() * block} of the {unwritten.numel()}: launch one program per "
            f"block, rounding up, grid = (triton.cdiv(n_elements, BLOCK_SIZE),).{cap}"
        )
    covered = launch.programs() - 1 + block
    overlapping = 0 < covered < unwritten.numel() and not bool(unwritten[:covered].any())
    if overlapping and bool(unwritten[covered:].all()):
        return (
            f"only elements 0 to {covered - 1} were written, though the grid's "
            f"{launch.programs()} programs have room for all of them: program pid wrote pid "
            f"to pid + {block - 1}, so the blocks overlap. Start each block at pid * "
            "BLOCK_SIZE: offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)."
        )
    return (
        f"The grid's {launch.programs()} programs of {block} have room for every element: each "
        "must store its whole block, offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE), masked "
        "with offs < n_elements."
    )


def random_vector(n: int, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    if dtype == torch.bfloat16:
        # past fp16's largest value (65504): bf16 added through fp16 overflows
        return (torch.randn(n, generator=gen, device=gen.device) * 1e6).to(dtype)
    if dtype.is_floating_point:
        return torch.randn(n, generator=gen, device=gen.device).to(dtype)
    # large enough that computing in float32 (exact only up to 2^24) gets them wrong
    return torch.randint(-(2**29), 2**29, (n,), generator=gen, device=gen.device, dtype=dtype)


def exact_sum(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x + y rounded once; past 2^26 elements, torch's own add (off by at most an ulp in
    fp16) rather than fp64 temporaries of tens of GB."""
    if x.numel() > 2**26:
        return x + y
    return (x.double() + y.double()).to(x.dtype)


def make_case(
    impl, n: int, dtype: torch.dtype = torch.float32, seed: int = 0, hints: Hints = HINTS
) -> Case:
    gen = generator(seed)
    x, y = random_vector(n, dtype, gen), random_vector(n, dtype, gen)
    return Case(
        name=f"n={n} {DTYPE_NAMES[dtype]} seed={seed}",
        fn=impl.add,
        inputs={"x": Guarded.holding(x), "y": Guarded.holding(y)},
        out=Guarded((n,), dtype, output=True),
        expected=exact_sum(x, y),
        tol=TOLERANCES[dtype],
        hints=hints,
        owner=owner,
        why_unwritten=why_unwritten,
    )


# the blocks a vector kernel picks: a drawn length is a multiple of one, or just off it
BLOCKS = (128, 256, 512, 1024, 2048, 4096)

LARGE = [
    pytest.param(2**24 + 7, id="2^24+7", marks=needs_gpu("too many programs for the CPU")),
    pytest.param(10**8 + 3, id="1e8+3", marks=needs_gpu("too many programs for the CPU")),
]


@check("adds")
@pytest.mark.parametrize(
    "n",
    [
        4096,
        65536,
        drawn((4096, 65536), near=BLOCKS, offsets=(0,)),
        pytest.param(2**24, id="2^24", marks=needs_gpu("too many programs for the CPU")),
    ],
)
def test_adds_two_vectors(impl, n):
    n = sides(n, seed=0)
    run_case(make_case(impl, n, seed=n % 7))


@check("adds")
def test_adds_twice(impl):
    # two calls in a row: what the first leaves behind must not change the second's result
    run_twice(make_case(impl, 8192, seed=0))


@check("tail")
@pytest.mark.parametrize(
    "n",
    [
        1000,
        1025,
        4097,
        98_431,
        # multiples of 256 and of 512 that no block of 512 or 1024 divides: a path without masks
        # taken when n divides by a smaller number than the block still leaves a partial block
        4352,
        4608,
        # past 2^20, the most elements one block may have (triton's limit): one program with a
        # block of next_power_of_2(n) is refused here, as on a GPU. Blocks of 16 make it 65,537
        # programs, which only a GPU runs in time
        pytest.param(2**20 + 1, id="1048577", marks=large_on_the_interpreter()),
        drawn((129, 100_000), near=BLOCKS, offsets=(-1, 1, 3)),
        *LARGE,
    ],
)
def test_masks_the_tail(impl, n):
    run_case(make_case(impl, sides(n, seed=1), seed=1))


@check("tail")
def test_masks_the_tail_in_every_autotune_config(impl):
    # a kernel autotuned over BLOCK_SIZE may run with any of its configs: the grid must be a
    # function of the one it got, lambda META: (triton.cdiv(n, META["BLOCK_SIZE"]),)
    run_in_every_autotune_config(make_case(impl, 4097, seed=1))


@check("tiny")
@pytest.mark.parametrize("n", [1, 2, 3, 31, drawn((1, 100), near=(8, 16, 32, 64))])
def test_tiny_sizes(impl, n):
    run_case(make_case(impl, sides(n, seed=2), seed=2))


@check("dtypes")
@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(torch.float16, id="fp16"),
        pytest.param(torch.int32, id="int32"),
        pytest.param(torch.bfloat16, id="bf16", marks=needs_bf16()),
        # 53 bits of mantissa: an add through fp32 keeps 24 of them
        pytest.param(torch.float64, id="fp64"),
    ],
)
def test_dtypes(impl, dtype):
    run_case(make_case(impl, 1000, dtype, seed=3, hints=DTYPE_HINTS))


@check("inside")
@pytest.mark.parametrize(
    "n", [1, 129, 1000, 2049, 98_431, drawn((1, 100_000), near=BLOCKS, offsets=(-1, 1))]
)
def test_no_writes_outside(impl, n):
    case = make_case(impl, sides(n, seed=4), seed=4)
    run_case(dataclasses.replace(case, past_end=True))


@check("allocates")
@pytest.mark.parametrize(
    "dtype",
    [
        pytest.param(torch.float32, id="fp32"),
        pytest.param(torch.float16, id="fp16"),
        pytest.param(torch.int32, id="int32"),
        pytest.param(torch.bfloat16, id="bf16", marks=needs_bf16()),
    ],
)
def test_allocates_result(impl, dtype):
    # then a second call on other inputs: the first call's result must still be its own
    check_allocates(make_case(impl, 1000, dtype, seed=5), make_case(impl, 1000, dtype, seed=55))


@check("launches")
@pytest.mark.parametrize("n", [777, 5000])
def test_launches_kernel(impl, n):
    run_case(make_case(impl, n, seed=6))


@check("compiles")
@pytest.mark.parametrize(
    "dtype", [pytest.param(torch.float32, id="fp32"), pytest.param(torch.float16, id="fp16")]
)
def test_compiles_for_gpu(impl, dtype):
    run_case(make_case(impl, 1000, dtype, seed=7))


# 2^31 + 2^20 + 7 fp16 elements: 4.3 GB a tensor, about 32 GB with the canaries and copies.
OVERFLOW_N = 2**31 + 2**20 + 7
OVERFLOW_HINTS = dataclasses.replace(
    HINTS,
    outside="pid * BLOCK_SIZE is computed in int32 and wraps past 2^31: start from "
    "pid.to(tl.int64) * BLOCK_SIZE.",
    unwritten="pid * BLOCK_SIZE is computed in int32 and wraps past 2^31: start from "
    "pid.to(tl.int64) * BLOCK_SIZE.",
    values="pid * BLOCK_SIZE is computed in int32 and wraps past 2^31: start from "
    "pid.to(tl.int64) * BLOCK_SIZE.",
)


@check("int64")
@pytest.mark.parametrize(
    "n", [pytest.param(OVERFLOW_N, id="2^31+2^20+7", marks=needs_gpu("4.3 GB tensors"))]
)
def test_int64_offsets(impl, n):
    with big_gpu_memory(48e9):
        run_case(make_case(impl, n, torch.float16, seed=8, hints=OVERFLOW_HINTS))


def bench_inputs(shape: Shape) -> tuple[torch.Tensor, torch.Tensor]:
    n = shape.params["n"]
    return torch.randn(n, device="cuda"), torch.randn(n, device="cuda")


# The benchmark, over the shapes the spec declares (separate from the test shapes)
BENCH = Bench(
    entry="add",
    shapes=[Shape(f"2^{p['n'].bit_length() - 1}", p["n"], p) for p in SPEC.bench_shapes],
    make_inputs=bench_inputs,
    torch_fn=torch.add,
    torch_name="torch.add",
    unit="GB/s",
    flops=lambda shape: shape.params["n"],  # an add per element
    bytes_moved=lambda shape: 3 * shape.params["n"] * 4,  # read x and y, write out: fp32
    tolerance=lambda shape: TOLERANCES[torch.float32],
    size_name="elements",
)
