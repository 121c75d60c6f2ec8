"""Graded checks for t4 · Grouped, strided, autotuned matmul. Lesson: content/t4_matmul.md

Matmul cases run the learner's `matmul` on operands and an output inside canary-filled buffers,
some transposed or with gaps between their rows, against a @ b in float64 rounded to fp16. The
pid-to-tile helper `grouped_tile` is also probed on its own with a small kernel, for grids of
tiles that the matmul cases would need far too much time to reach on the interpreter. On a GPU,
every config in the learner's autotune list is forced in turn.
"""

import dataclasses

import pytest
import torch

from drills import runtime, spec
from drills.bench import Bench, Shape, matmul_bytes, matmul_flops
from drills.failures import Kind, Stop
from drills.judge.remote import LearnerError, shared_empty
from drills.judge.testing import (
    MANY_TILES,
    Case,
    ConfigPruned,
    Guarded,
    Hints,
    Tolerance,
    adds_with_atomics,
    big_gpu_memory,
    check_allocates,
    checks_of,
    device,
    dot_product_tolerance,
    drawn,
    fail,
    generator,
    k_loop_mistake,
    kernels_launched,
    matmul_tile,
    needs_gpu,
    not_applicable,
    note,
    recorded_launches,
    run_case,
    run_twice,
    sides,
    small_integers,
    stored_by,
)

# as in t3: fp16 output rounding dominates; each case measures it against |a| @ |b|
TOLERANCE = Tolerance(1e-2, 2e-3)
EXACT = Tolerance(0, 0)  # sums of small integers: fp16 holds them exactly

SPEC = spec.of("t4_matmul")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="Store with mask = (offs_am < M) & (offs_bn < N), through c's own strides.",
    outside_read="Each load's mask must stop at its tensor's end: rows < M and k < K for a, k "
    "< K and columns < N for b, with k the lanes' own indices along K. A mask of offs_k against "
    "K - k, where k counts blocks rather than elements, lets the last block run past K: "
    "compare with K - k * BLOCK_SIZE_K.",
    unwritten="Tiles were left without a program: the grid must be a function of the config "
    "autotune chose, lambda META: (cdiv(M, META['BLOCK_SIZE_M']) * cdiv(N, "
    "META['BLOCK_SIZE_N']),), and grouped_tile must reach every tile.",
    nan="The padding around a and b holds NaN: a load past the end of K was not masked.",
    values="Address every operand through its strides: a[i, k] is at i * stride_am + k * "
    "stride_ak, b[k, j] at k * stride_bk + j * stride_bn, c[i, j] at i * stride_cm + j * "
    "stride_cn.",
    near="Accumulate in float32 (acc = tl.zeros(..., dtype=tl.float32)) and convert to fp16 "
    "once, in the epilogue: an fp16 sum rounds at every step of K.",
)
GAPS_NAN = (
    "The judge fills the gaps between the columns of u[:, ::2] and w[:, ::2] with NaN, and c "
    "holds NaN: a load read in the gaps between columns, as one that takes an operand's column "
    "stride (or its row stride) for 1 does. Pass both strides of a and b and read a[i, k] at i "
    "* stride_am + k * stride_ak, b[k, j] at k * stride_bk + j * stride_bn."
)
FP32_HINTS = dataclasses.replace(
    HINTS,
    values="Accumulate in float32 (tl.zeros(..., dtype=tl.float32), acc = tl.dot(a, b, acc)) "
    "and convert to fp16 once, in the epilogue.",
)
K_HINTS = dataclasses.replace(
    HINTS,
    values="the last step of K is partial where K is not a multiple of BLOCK_SIZE_K: mask its k "
    "(k < K - k_step * BLOCK_SIZE_K) in both loads, with other=0.0, in every config.",
)


def owner(launch, idx) -> str:
    bm, bn = (launch.size(k) for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N")) if launch else (None, None)
    if bm is None or bn is None:
        return ""
    return f"tile (pid_m, pid_n) = ({idx[0] // bm}, {idx[1] // bn}), BLOCK {bm} x {bn}"


# what a kernel may promise about each side of c, and who checks it
ALIGNMENT_FIXES = {
    "M": "M can be any size; make such a promise (known_multiple, tl.multiple_of) only of what "
    "the host checked: N, K and the row strides.",
    "N": "the host must check N itself before it promises that (row_alignment's names): a "
    "slice of a wider tensor has row strides that are multiples of 8 whatever its own N.",
}


def alignment_promised(launch, unwritten: torch.Tensor) -> str:
    """Why the last rows (or columns) of c were never written, when they are those past M (N)
    rounded down to a multiple of 8 or 16 inside a tile that had its program: the kernel was
    told M (N) is such a multiple."""
    sides = (("M", "rows", unwritten), ("N", "columns", unwritten.t()))
    for side, what, cut in sides:
        extent = cut.shape[0]
        block = launch.size(f"BLOCK_SIZE_{side}") if launch else None
        for a in (8, 16):
            first = extent // a * a
            in_a_tile = isinstance(block, int) and first % block != 0
            cut_off = bool(cut[first:].all()) and not bool(cut[:first].any())
            if 0 < first < extent and in_a_tile and cut_off:
                return (
                    f"{what} {first} to {extent - 1} were never written, and {first} is "
                    f"{side} = {extent} rounded down to a multiple of {a}: the kernel treats "
                    f"{side} as a multiple of {a}. {ALIGNMENT_FIXES[side]}"
                )
    return ""


def tiles_not_one_each(launch, unwritten: torch.Tensor) -> str:
    """Why tiles went unwritten where the grid had a program for every one of them: programs
    computed tiles outside c, or the same tile twice, so the order mapping pids to tiles is not
    one to one (a grid too small gets the hint's words instead)."""
    sizes = tile_and_group(launch) if launch else None
    if sizes is None or any(axis != 1 for axis in launch.grid[1:]):
        return ""
    bm, bn, _ = sizes
    tiles_m, tiles_n = -(-unwritten.shape[0] // bm), -(-unwritten.shape[1] // bn)
    if launch.grid[0] != tiles_m * tiles_n:
        return ""
    missed = sum(
        bool(unwritten[m * bm : (m + 1) * bm, n * bn : (n + 1) * bn].all())
        for m in range(tiles_m)
        for n in range(tiles_n)
    )
    return (
        f"The grid launched one program per tile ({tiles_m} x {tiles_n}), yet {missed} tiles "
        "got none: some programs computed a tile outside c, or one another program computed "
        "too, so pids do not map to tiles one to one. Most often it is the last group: it can "
        "have fewer rows than GROUP_SIZE_M, so its height is min(num_pid_m - first_pid_m, "
        "GROUP_SIZE_M). Or the size of a group: GROUP_SIZE_M rows of tiles, each num_pid_n "
        "wide, so num_pid_in_group = GROUP_SIZE_M * num_pid_n."
    )


def why_tiles_unwritten(launch, unwritten: torch.Tensor) -> str:
    return alignment_promised(launch, unwritten) or tiles_not_one_each(launch, unwritten)


def make_case(
    impl,
    M,
    N,
    K,
    *,
    seed=0,
    positive=False,
    integers=False,
    a_t=False,
    b_t=False,
    c_t=False,
    gaps=(0, 0, 0),
    every_other=False,
    hints=HINTS,
) -> Case:
    """a [M, K] @ b [K, N] into out [M, N]; a_t / b_t / c_t store one of them transposed (b =
    w.t(), out = buf.t()); gaps put canaries between the rows of a, b and c, giving each a row
    stride of its own; every_other makes a and b every other column of wider tensors (a =
    u[:, ::2]: no stride of 1)."""
    gen = generator(seed)
    if every_other:  # on a GPU, a read of a gap shows only as the NaN the judge fills it with
        hints = dataclasses.replace(hints, nan=GAPS_NAN)
    draw = small_integers if integers else torch.rand if positive else torch.randn
    a = draw(M, K, generator=gen, device=device()).half()
    b = draw(K, N, generator=gen, device=device()).half()
    transposed = (("a = u.t()", a_t), ("b = w.t()", b_t), ("out = buf.t()", c_t))
    layout = [name for name, on in transposed if on]
    layout += ["small integers, exact"] if integers else []
    layout += [f"row gaps {gaps}"] if any(gaps) else []
    layout += ["a = u[:, ::2], b = w[:, ::2]"] if every_other else []
    operands = (
        Guarded.holding(
            a, transposed=a_t, row_gap=gaps[0], strides=(2 * K, 2) if every_other else None
        ),
        Guarded.holding(
            b, transposed=b_t, row_gap=gaps[1], strides=(2 * N, 2) if every_other else None
        ),
    )
    return Case(
        name=f"M={M} N={N} K={K} seed={seed}" + "".join(f", {x}" for x in layout),
        fn=impl.matmul,
        inputs=dict(zip("ab", operands, strict=True)),
        out=Guarded((M, N), torch.float16, output=True, row_gap=gaps[2], transposed=c_t),
        expected=(a.double() @ b.double()).half(),
        tol=EXACT if integers else dot_product_tolerance(TOLERANCE, a, b),
        hints=hints,
        owner=owner,
        tile=matmul_tile,
        diagnose=k_loop_mistake(a, b, TOLERANCE, "BLOCK_SIZE_K", operands),
        why_unwritten=why_tiles_unwritten,
    )


def mnk(*triples, gpu=()) -> list:
    return [pytest.param(t, id="x".join(map(str, t))) for t in triples] + [
        pytest.param(t, id="x".join(map(str, t)), marks=needs_gpu("large")) for t in gpu
    ]


# drawn sides: a few tiles of the interpreter's config, next to tile, group and alignment sizes
SIDE = (16, 160)


def autotuned_kernel(impl) -> str:
    """The autotuned kernel matmul launches, by the name triton gives it (its function's): found
    from what a call launches, whatever the module calls it (matmul_kernel = kernel_fma)."""
    launched = kernels_launched(make_case(impl, *GRID_SHAPES[0], seed=2))
    if not launched:
        fail(Kind.NO_LAUNCH, "matmul launched no Triton kernel, so no autotune config ran.")
    kernel = autotuned_kernel_among(impl, launched)
    if kernel is not None:
        return kernel
    fail(
        Kind.NOT_AUTOTUNED,
        f"{launched[-1]} is not autotuned: decorate it with @triton.autotune(configs=CONFIGS, "
        "key=['M', 'N', 'K']).",
    )


def autotuned_kernel_among(impl, launched: list[str]) -> str | None:
    """The last of the kernels a call launched that autotune wraps, or None."""
    return next((name for name in reversed(launched) if impl.configs(name, "matmul")), None)


def autotune_configs(impl, kernel: str) -> list[tuple[str, dict]]:
    """`kernel`'s autotune configs, each with the values its launch must use. Whether it is
    autotuned, and with which configs, is read from the source; where the list cannot be read
    without running code, the runner's list only chooses which configs the judge runs."""
    if not impl.autotuned(kernel):
        fail(
            Kind.NOT_AUTOTUNED,
            f"{kernel} is not autotuned where it is defined: decorate it with "
            "@triton.autotune(configs=CONFIGS, key=['M', 'N', 'K']).",
        )
    claimed = impl.configs(kernel, "matmul")
    strays = impl.autotune_key_strays(kernel)
    if strays:
        note(
            f"{kernel}'s autotune key names {strays}, which are not its arguments: this triton "
            "drops such names from the key, so what they were meant to follow never re-tunes "
            "the kernel (with no name left, it tunes once, for the first shape, and keeps that "
            "config for every other); triton 3.9 refuses the file. Use the kernel's own "
            "argument names: key=['M', 'N', 'K']."
        )
    configs = listed_configs(impl, kernel)
    read = [text for text, _ in configs]
    if read != claimed:
        fail(
            Kind.NOT_AUTOTUNED,
            f"{kernel}'s configs as your file runs them ({len(claimed)}: {claimed[:2]}) are not "
            f"the ones its source lists ({len(read)}: {read[:2]}).",
        )
    return configs


def listed_configs(impl, kernel: str) -> list[tuple[str, dict]]:
    """`kernel`'s configs, each with the values its launch must use, as its source lists them;
    where the list cannot be read without running code, the runner's, values unknown."""
    listed = impl.source_configs(kernel)
    if listed is None:
        return [(c, {}) for c in impl.configs(kernel, "matmul")]
    return [(str(c), config_values(c)) for c in listed]


def config_values(config) -> dict:
    """The constexprs and launch options a config sets."""
    return config.kwargs | {"num_warps": config.num_warps, "num_stages": config.num_stages}


# On a GPU, rows of tiles that no group of 8 divides, whatever the tile's height from 32 to 256
# (91, 46, 23 or 12 rows): the last group is shorter than the others, as MANY_TILES's 24 rows of
# 128 and 2048's rows are not, and a kernel that does not clip it leaves tiles unwritten.
SHORT_LAST_GROUP = (2900, 4001, 64)


@check("multiplies")
@pytest.mark.parametrize(
    "shape",
    [
        *mnk((64, 64, 64), (128, 96, 64), gpu=[(2048,) * 3, (*MANY_TILES, 64), SHORT_LAST_GROUP]),
        drawn(SIDE, SIDE, SIDE, near=(32, 64), offsets=(0,)),
        pytest.param((64, 48, 64, "integers"), id="64x48x64-integers-exact"),
    ],
)
def test_multiplies(impl, shape):
    M, N, K, *integers = sides(shape, seed=1)
    run_case(make_case(impl, M, N, K, seed=1, integers=bool(integers)))


# K long enough for a split of K into 4 blocks of 64, the widest the usual pruning keeps
TWICE_SHAPE = (96, 80, 256)


@check("multiplies")
def test_multiplies_twice(impl):
    # two calls in a row: what the first leaves behind (a workspace) must not change the second.
    # A kernel that adds into its output with atomics runs as a GPU's autotune may run it, with
    # each config chosen in turn: on the first call of a shape, the timing runs into the call's
    # own output, then the real run; the second call, answered from autotune's cache, untimed.
    # A split-K config whose output only reset_to_zero zeroes (around those timing runs) adds
    # into whatever the second output held. The judge's timing ties: unforced, it keeps the
    # first config, where a GPU may choose any.
    case = make_case(impl, *TWICE_SHAPE, seed=1)
    # atomics are read from the source; only then does finding the autotuned kernel take a call
    atomic = adds_with_atomics(case)
    kernel = autotuned_kernel_among(impl, kernels_launched(case)) if atomic else None
    if kernel is None:
        run_twice(case)
        return
    cases = config_cases(impl, kernel, TWICE_SHAPE, 1, listed_configs(impl, kernel))
    run_each_config([dataclasses.replace(c, benchmarked=True) for c in cases], run=run_twice)


# Two shapes that triton compiles alike (K and a's row stride are multiples of 16; M, N and
# the row strides of b and c are not), so that each config is compiled once, not twice:
# compiling is most of the time a GPU spends grading this drill.
GRID_SHAPES = [(100, 70, 48), (250, 260, 64)]


@check("autotune_grid")
@pytest.mark.parametrize("shape", mnk(*GRID_SHAPES, gpu=[(*MANY_TILES, 64)]))
def test_grid_follows_config(impl, shape):
    kernel = autotuned_kernel(impl)
    run_each_config(config_cases(impl, kernel, shape, 2, autotune_configs(impl, kernel)))
    run_first_call(impl, shape)


def config_cases(impl, kernel: str, shape, seed: int, configs: list[tuple[str, dict]]) -> list:
    """A case of `shape` for each of `kernel`'s configs (each with the values its launch must
    use, where known), forced in turn. A GPU compiles each config it runs: so does the judge on
    the CPU, which also runs each config of the list the file makes on a GPU, at the smaller
    shape, whose edges already cut every tile."""
    cases = [
        dataclasses.replace(
            make_case(impl, *shape, seed=seed),
            name=f"M={shape[0]} N={shape[1]} K={shape[2]}, {case_text(config)}",
            config={"kernel": kernel, "index": index},
            launched_with=values,
        )
        for index, (config, values) in enumerate(configs)
    ]
    if not runtime.current().is_gpu:
        cases += gpu_config_cases(impl, kernel, shape, seed, [values for _, values in configs])
    return cases


def run_each_config(cases: list[Case], run=run_case) -> None:
    """Each case, one config each, run by `run`: a config the kernel's own pruning
    (prune_configs_by) removes for the case's shape is skipped, as autotune skips it, and so,
    on a GPU, is one that cannot load there (with a note); at least one must run."""
    too_big, pruned = [], []
    for case in cases:
        try:
            run(case)
        except ConfigPruned:
            pruned.append(case.name)
        except LearnerError as e:
            if e.kind != Stop.OUT_OF_RESOURCES:
                raise
            too_big.append(f"{case.name.split(', ', 1)[-1]}: {e}")
    if len(too_big) + len(pruned) == len(cases):
        why = f"none of your configs can load on this GPU. {too_big[0]}" if too_big else ""
        if why:
            fail(Kind.GPU_REFUSES, why)
        fail(Kind.NOT_AUTOTUNED, "your prune_configs_by removes every config for this shape.")
    if too_big:
        note(
            f"{len(too_big)} of your {len(cases)} configs cannot load on this GPU: this check "
            f"skips them, as the autotuner does. First: {too_big[0]}"
        )


def case_text(config: str) -> str:
    """A config as a case names it: "BLOCK_SIZE_M=64, ...", without the colons that end a
    case's name in its message."""
    return config.replace(": ", "=")


def gpu_config_cases(impl, kernel: str, shape, seed: int, ran: list[dict]) -> list[Case]:
    """On the CPU, a case for each config of the list the file makes on a GPU machine (its
    source read as there, without TRITON_INTERPRET) and not in `ran`, run with the module's list
    reading as there too: what only a GPU config breaks (a grid, a mask, a compile) shows here
    as well."""
    listed = impl.source_configs(kernel, on_a_gpu=True)
    if listed is None:
        note(
            "the list of configs your file makes on a GPU could not be read from its source: "
            "only a GPU runs those configs."
        )
        return []
    given = [
        {"kwargs": c.kwargs, "num_warps": c.num_warps, "num_stages": c.num_stages} for c in listed
    ]
    cases = []
    for index, config in enumerate(listed):
        values = config_values(config)
        if values in ran:
            continue
        ran.append(values)
        case = make_case(impl, *shape, seed=seed)
        cases.append(
            dataclasses.replace(
                case,
                name=f"{case.name}, a GPU config {case_text(str(config))}",
                config={"kernel": kernel, "configs": given, "index": index},
                launched_with=values,
            )
        )
    return cases


def run_first_call(impl, shape) -> None:
    """The first call of a shape: autotune runs each config on the call's own tensors to time
    it, and what those runs leave in the output stays there. The judge's timing ties, so the
    first config (after pruning) is the one kept."""
    case = make_case(impl, *shape, seed=2)
    run_case(dataclasses.replace(case, name=f"{case.name}, first call", benchmarked=True))


# ---------------------------------------------------------------------------------------------
# grouped_tile, probed on its own
# ---------------------------------------------------------------------------------------------


def pid_grid(tiles: list[tuple[int, int]], num_pid_m: int, num_pid_n: int) -> str:
    """Which pid owns each tile, one line per row of tiles: the lesson's pictures."""
    owner = {tile: pid for pid, tile in enumerate(tiles)}
    width = len(str(len(tiles) - 1))
    return "\n".join(
        " ".join(f"{owner[(m, n)]:>{width}}" for n in range(num_pid_n)) for m in range(num_pid_m)
    )


def grouping_problem(tiles, num_pid_m: int, num_pid_n: int, group: int) -> str | None:
    """Why this pid -> tile mapping is not a grouped visit of every tile, or None."""
    grid = f"{num_pid_m} x {num_pid_n} tiles, GROUP_SIZE_M = {group}"
    for pid, (m, n) in enumerate(tiles):
        if not (0 <= m < num_pid_m and 0 <= n < num_pid_n):
            clip = (
                " A group can have fewer rows than GROUP_SIZE_M (the last one, or all of "
                "them when the grid is short): its height is min(num_pid_m - first_pid_m, "
                "GROUP_SIZE_M)."
                if m >= num_pid_m
                else " pid_n = (pid % num_pid_in_group) // group_size_m stays below num_pid_n "
                "only where a group holds GROUP_SIZE_M rows of num_pid_n tiles, num_pid_in_group "
                "= GROUP_SIZE_M * num_pid_n, and group_size_m is its own height."
            )
            return f"{grid}: pid {pid} maps to tile ({m}, {n}), outside the grid of tiles.{clip}"
    missing = sorted({(m, n) for m in range(num_pid_m) for n in range(num_pid_n)} - set(tiles))
    if missing:
        return (
            f"{grid}: {len(missing)} tiles have no program (first: {missing[0]}), so "
            "some pids share a tile."
        )
    for pid, (m, n) in enumerate(tiles):
        first = pid // (group * num_pid_n) * group
        rows = min(num_pid_m - first, group)
        if not first <= m < first + rows or n != pid % (group * num_pid_n) // rows:
            return (
                f"{grid}: pid {pid} maps to tile ({m}, {n}); in grouped order it belongs "
                f"to rows {first}..{first + rows - 1}, column "
                f"{pid % (group * num_pid_n) // rows}."
            )
    return None


def grouped_order(num_pid_m: int, num_pid_n: int, group: int, clip_m=True, clip_n=True) -> list:
    """The grouped visit of every tile; clip_m / clip_n False: pid_m / pid_n computed with
    GROUP_SIZE_M where the last group needs its own, smaller height."""
    tiles = []
    for pid in range(num_pid_m * num_pid_n):
        first = pid // (group * num_pid_n) * group
        rows = min(num_pid_m - first, group)
        in_group = pid % (group * num_pid_n)
        tiles.append(
            (
                first + in_group % (rows if clip_m else group),
                in_group // (rows if clip_n else group),
            )
        )
    return tiles


LAST_GROUP_MISTAKES = [
    (
        (False, False),
        (
            "The last group has only num_pid_m - first_pid_m rows: use group_size_m = "
            "min(num_pid_m - first_pid_m, GROUP_SIZE_M) for it, not GROUP_SIZE_M."
        ),
    ),
    (
        (True, False),
        (
            "pid_m uses the last group's own height, but pid_n does not: pid_n = (pid % "
            "num_pid_in_group) // group_size_m, the clipped height, not GROUP_SIZE_M."
        ),
    ),
    (
        (False, True),
        (
            "pid_n uses the last group's own height, but pid_m does not: pid_m = first_pid_m + "
            "(pid % num_pid_in_group) % group_size_m, the clipped height, not GROUP_SIZE_M."
        ),
    ),
]


def last_group_mistake(tiles, grid) -> str:
    """Which part of the clipping a mapping leaves out, where it matches one; else what both
    parts need."""
    found = [tuple(t) for t in tiles]
    for (clip_m, clip_n), advice in LAST_GROUP_MISTAKES:
        if found == grouped_order(*grid, clip_m=clip_m, clip_n=clip_n):
            return advice
    return (
        "The last group's height is group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M): "
        "pid_m takes pid % group_size_m and pid_n pid // group_size_m, within the group."
    )


GROUPED = [(4, 4, 2), (6, 3, 3), (8, 5, 1), (2, 2, 4), (16, 16, 8)]
LAST_GROUPS = [(5, 3, 2), (7, 4, 4), (3, 5, 8), (10, 3, 8)]


# The judge's kernel that probes the helper, appended to the learner's kernels: grouped_tile
# resolves there.
PROBE_SOURCE = """

@triton.jit
def probe_grouped_tile(pid_m_ptr, pid_n_ptr, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)
    tl.store(pid_m_ptr + pid, pid_m)
    tl.store(pid_n_ptr + pid, pid_n)
"""


def probe_grouped_tile(impl, num_pid_m: int, num_pid_n: int, group: int) -> list[tuple]:
    """(pid_m, pid_n) of every pid, as the learner's grouped_tile computes them, run by the
    judge's executor."""
    impl.check_readable("matmul")
    total = num_pid_m * num_pid_n
    pid_m, pid_n = (shared_empty(total, torch.int32, device()).fill_(-1) for _ in range(2))
    impl.probe(
        PROBE_SOURCE,
        "probe_grouped_tile",
        total,
        "grouped_tile",
        pid_m_ptr=pid_m,
        pid_n_ptr=pid_n,
        num_pid_m=num_pid_m,
        num_pid_n=num_pid_n,
        GROUP_SIZE_M=group,
    )
    return list(zip(pid_m.tolist(), pid_n.tolist(), strict=True))


def probed_helper(impl) -> None:
    """The probe needs the drill's helper, grouped_tile(pid, num_pid_m, num_pid_n,
    GROUP_SIZE_M); a kernel that computes its tile inline, as triton's tutorial does, or
    through a helper of its own, is judged on the order its own stores show instead."""
    if not impl.takes_positional("grouped_tile", 4):
        not_applicable(
            "the file has no grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M); the "
            "kernel's own stores show its order"
        )


@check("grouped")
@pytest.mark.parametrize(
    "grid",
    [
        *(pytest.param(g, id=f"{g[0]}x{g[1]}-G{g[2]}") for g in GROUPED),
        drawn((1, 40), (1, 40), (1, 16), near=(2, 4, 8, 16)),
    ],
)
def test_grouped_order(impl, grid):
    probed_helper(impl)
    grid = sides(grid, seed=0)
    tiles = probe_grouped_tile(impl, *grid)
    problem = grouping_problem(tiles, *grid)
    if problem:
        short_group = grid[0] % grid[2] and "min(num_pid_m - first_pid_m" not in problem
        advice = last_group_mistake(tiles, grid) if short_group else ""
        fail(Kind.GROUPED_TILE, f"grouped_tile: {problem} {advice}".rstrip())


GROUP_NAMES = ("GROUP_SIZE_M", "GROUP_M")  # a group's height in tiles: the drill's name, inductor's


def tile_and_group(launch) -> tuple[int, int, int] | None:
    """A matmul launch's tile of c and GROUP_SIZE_M, from its constexprs (the drill's names, or
    BLOCK_M, BLOCK_N and GROUP_M), or None."""
    group = next((launch.size(n) for n in GROUP_NAMES if launch.size(n)), None)
    tile = matmul_tile(launch)
    return (*tile, group) if tile and group else None


def programs_tiles(writers: torch.Tensor, bm: int, bn: int, programs: int) -> list[list]:
    """The tiles of c (in tiles of bm x bn) that each program stored, by its id along axis 0
    (a split-K program's other axes share it), each program's in row-major order."""
    tiles: list[list] = [[] for _ in range(programs)]
    for m in range(-(-writers.shape[0] // bm)):
        for n in range(-(-writers.shape[1] // bn)):
            for pid in stored_by(writers[m * bm : (m + 1) * bm, n * bn : (n + 1) * bn]):
                tiles[pid % programs].append((m, n))
    return tiles


def one_tile_each(found: list[list]) -> str:
    """Why these programs do not store one tile each, or ""."""
    pid = next((pid for pid, held in enumerate(found) if len(held) != 1), None)
    if pid is None:
        return ""
    return (
        f"c is right, but the kernel does not visit its tiles in grouped order: program {pid} "
        f"stored {len(found[pid]) or 'no'} tiles of c ({found[pid][:4]}), where every program "
        f"stores one. {ORDER_ADVICE}"
    )


def grouped_stores(launch, writers: torch.Tensor) -> str:
    """Case.stores for a matmul case: the kernel's own order of tiles, from which program
    stored each. Where programs take one tile each, program i's tile must be tile i of the
    grouped order; where they take several, tile i belongs to program i % programs (a
    persistent kernel's stride over the tiles) or i // tiles-per-program. A split-K program's
    id counts along axis 0 only. A launch that does not name its tile and group is judged by
    unnamed_order."""
    sizes = tile_and_group(launch)
    if sizes is None:
        return unnamed_order(launch, writers)
    bm, bn, group = sizes
    grid = (-(-writers.shape[0] // bm), -(-writers.shape[1] // bn), group)
    order = grouped_order(*grid)
    axis0 = launch.grid[0]
    if axis0 == len(order):  # one tile each: the probe's own words
        found = programs_tiles(writers, bm, bn, axis0)
        several = one_tile_each(found)
        if several:
            return several
        tiles = [held[0] for held in found]
        problem = grouping_problem(tiles, *grid)
        if problem is None:
            return ""
        row_by_row = tiles == grouped_order(grid[0], grid[1], 1)
        advice = last_group_mistake(tiles, grid) if grid[0] % group and not row_by_row else ""
        return (
            f"c is right, but the kernel does not visit its tiles in grouped order: {problem} "
            f"{advice or ORDER_ADVICE}"
        )
    stored = [
        {p % axis0 for p in stored_by(writers[m * bm : (m + 1) * bm, n * bn : (n + 1) * bn])}
        for m, n in order
    ]
    per_program = -(-len(order) // axis0)
    for owner_of in (lambda i: i % axis0, lambda i: i // per_program):
        if all(programs == {owner_of(i)} for i, programs in enumerate(stored)):
            return ""
    i = next(i for i, programs in enumerate(stored) if programs != {i % axis0})
    return (
        f"c is right, but the kernel does not visit its tiles in grouped order: tile "
        f"{order[i]} was stored by program {sorted(stored[i]) or 'none'}, and in grouped order "
        f"({grid[0]} x {grid[1]} tiles, GROUP_SIZE_M = {group}) it is program {i % axis0}'s. "
        f"{ORDER_ADVICE}"
    )


def unnamed_order(launch, writers: torch.Tensor) -> str:
    """The order of a launch that names neither its tile nor its group (names of its own):
    the tile is the one program 0 stored, the first of every grouped order, and the programs,
    one tile each, must follow a grouped order of some GROUP_SIZE_M of 2 or more (1 is a walk
    row by row, no grouping at all). Left alone where programs take several tiles each, or
    where the tiles make a single row or column, which every order walks alike."""
    axis0 = launch.grid[0]
    first = (writers >= 0) & (writers % axis0 == 0)
    rows, cols = (torch.nonzero(first.any(dim)).flatten().tolist() for dim in (1, 0))
    if not rows:
        return ""
    if rows[0] != 0 or cols[0] != 0:
        return (
            "c is right, but the kernel does not visit its tiles in grouped order: program 0 "
            f"did not store the first tile, at c[0, 0], but c[{rows[0]}, {cols[0]}]. "
            f"{ORDER_ADVICE}"
        )
    bm, bn = rows[-1] + 1, cols[-1] + 1
    num_pid_m, num_pid_n = -(-writers.shape[0] // bm), -(-writers.shape[1] // bn)
    if axis0 != num_pid_m * num_pid_n or num_pid_m < 2 or num_pid_n < 2:
        return ""
    found = programs_tiles(writers, bm, bn, axis0)
    several = one_tile_each(found)
    if several:
        return several
    tiles = [held[0] for held in found]
    if any(tiles == grouped_order(num_pid_m, num_pid_n, g) for g in range(2, num_pid_m + 1)):
        return ""
    row_by_row = tiles == grouped_order(num_pid_m, num_pid_n, 1)
    return (
        "c is right, but the kernel does not visit its tiles in grouped order: its "
        f"{num_pid_m} x {num_pid_n} tiles of {bm} x {bn} follow no grouped order of 2 rows or "
        f"more{', but go row by row' if row_by_row else ''} (its launch names no GROUP_SIZE_M "
        f"or GROUP_M, so any group height would do). {ORDER_ADVICE}"
    )


ORDER_ADVICE = (
    "Compute each program's tile as grouped_tile does (pid_m = first_pid_m + (pid % "
    "num_pid_in_group) % group_size_m, pid_n = (pid % num_pid_in_group) // group_size_m), "
    "not as pid // num_pid_n and pid % num_pid_n."
)


LAST_GROUP_HINTS = dataclasses.replace(
    HINTS,
    unwritten="Tiles were left without a program. The rows of tiles here are one past a whole "
    "group, so the last group has a single row: its height is group_size_m = min(num_pid_m - "
    "first_pid_m, GROUP_SIZE_M), for pid_m = first_pid_m + (pid % num_pid_in_group) % "
    "group_size_m and pid_n = (pid % num_pid_in_group) // group_size_m alike.",
)


def order_case(impl, rows_of_tiles, seed: int, hints: Hints = HINTS) -> Case:
    """A case of rows_of_tiles(GROUP_SIZE_M) rows and 3 columns of the tiles of the config the
    kernel runs with, on which its own order of tiles is judged (Case.stores): the tile and
    group sizes are read from what a call launches. Where the launch does not name them, a
    case of a few rows and columns of any config's tiles (unnamed_order)."""
    # sides that make several rows and columns of tiles of any config's tiles, up to 128 x 256
    unnamed = make_case(impl, 320, 544, 32, seed=seed)
    launches = recorded_launches(unnamed)
    sizes = tile_and_group(launches[-1]) if launches else None
    if sizes is None:
        return dataclasses.replace(unnamed, stores=grouped_stores)
    bm, bn, group = sizes
    case = make_case(impl, rows_of_tiles(group) * bm, 3 * bn, 32, seed=seed, hints=hints)
    return dataclasses.replace(case, stores=grouped_stores)


@check("grouped")
def test_kernel_visits_tiles_in_grouped_order(impl):
    # which program stored each tile of c (the interpreter notes it, a GPU's cut grids show
    # it): two whole groups of the kernel's config
    case = order_case(impl, lambda group: 2 * group, seed=13)
    run_case(case)
    if groups_of_one(impl, case):
        fail(
            Kind.TILE_ORDER,
            "every config sets GROUP_SIZE_M = 1: a group of one row of tiles is row-major "
            "order, whose programs running at once share no columns of b in L2. Give the "
            "configs groups of several rows of tiles (8 on a GPU, 2 or more in the "
            "interpreter's).",
        )


def groups_of_one(impl, case: Case) -> bool:
    """Whether the config the case ran with groups one row of tiles, and so does every config
    the file lists for a GPU (as far as its source shows them)."""
    launches = recorded_launches(case)
    sizes = tile_and_group(launches[-1]) if launches else None
    if sizes is None or sizes[2] != 1:
        return False
    kernel = autotuned_kernel_among(impl, [launch.kernel for launch in launches])
    listed = impl.source_configs(kernel) if kernel else None
    groups = {next((c.kwargs[n] for n in GROUP_NAMES if n in c.kwargs), None) for c in listed or []}
    return groups <= {1, None}


@check("last_group")
@pytest.mark.parametrize(
    "grid",
    [
        *(pytest.param(g, id=f"{g[0]}x{g[1]}-G{g[2]}") for g in LAST_GROUPS),
        drawn((2, 40), (1, 40), (2, 8), near=(2, 4, 8), offsets=(1,)),
    ],
)
def test_last_group(impl, grid):
    probed_helper(impl)
    num_pid_m, num_pid_n, group = sides(grid, seed=1)
    # a short last group is what this check is about: rows of tiles one past a multiple
    grid = (num_pid_m + (num_pid_m % group == 0), num_pid_n, group)
    tiles = probe_grouped_tile(impl, *grid)
    problem = grouping_problem(tiles, *grid)
    if problem:
        # a pid past the last row of tiles comes with the clipping advice already
        advice = "" if "min(num_pid_m - first_pid_m" in problem else last_group_mistake(tiles, grid)
        fail(Kind.GROUPED_TILE, f"grouped_tile: {problem} {advice}".rstrip())


@check("last_group")
def test_kernel_clips_its_last_group(impl):
    # after the probe, whose words are closer to the mistake: one row of tiles past a whole group: the last group has a single row
    run_case(order_case(impl, lambda group: group + 1, seed=14, hints=LAST_GROUP_HINTS))


@check("strides")
@pytest.mark.parametrize(
    "layout",
    [
        pytest.param({"b_t": True}, id="b=w.t()"),
        pytest.param({"a_t": True}, id="a=u.t()"),
        pytest.param({"gaps": (40, 24, 8)}, id="sliced-rows"),
        pytest.param({"a_t": True, "b_t": True, "gaps": (0, 0, 16)}, id="both-t-strided-c"),
        # every other column: no operand has a stride of 1, which a host that sorts layouts
        # into row-major and transposed (cuBLAS's N and T) takes for one of the two
        pytest.param({"every_other": True}, id="every-other-column"),
        # out= a transposed view: c's column stride is not 1
        pytest.param({"c_t": True}, id="out=buf.t()"),
        # everything a multiple of 8 but c's row stride (83): its alignment must be checked too
        pytest.param({"gaps": (0, 0, 3)}, id="c-row-stride-83"),
        # a's rows 48 apart, every row stride a multiple of 8, K = 45 not: K's own alignment
        # must be checked, which a's stride no longer stands in for
        pytest.param({"gaps": (3, 0, 0), "shape": (96, 80, 45)}, id="sliced-a-k-45"),
        # b and c slices 78 columns wide of rows 80 apart: every row stride a multiple of 8, N
        # not, so N's own alignment must be checked too (72, N rounded down, ends in a tile)
        pytest.param({"gaps": (0, 2, 2), "shape": (96, 78, 72)}, id="sliced-b-c-n-78"),
        pytest.param(
            {"b_t": True, "gaps": (8, 0, 8), "shape": (*MANY_TILES, 72)},
            id="many-tiles-b=w.t()-sliced",
            marks=needs_gpu("large"),
        ),
    ],
)
def test_strides(impl, layout):
    shape = layout.get("shape", (96, 80, 72))
    layout = {k: v for k, v in layout.items() if k != "shape"}
    case = make_case(impl, *shape, seed=3, **layout)
    run_case(dataclasses.replace(case, through_strides=True))


@check("strides")
def test_strides_after_aligned_ones(impl):
    """The same M, N and K with every row stride a multiple of 8, then with c's rows 83 apart:
    an autotune key without the strides keeps the config chosen the first time, one whose
    pruning may have promised aligned rows (known_multiple, tl.multiple_of). A shape no other
    case has, so autotune's choice for it is the first call's; c's rows 72 + 11 apart, so that
    83 rounded down to a multiple of 8 is not c's width."""
    run_case(make_case(impl, 88, 72, 40, seed=3))
    cached = (
        "M, N and K were the same in the call before, with every row stride a multiple of 8: a "
        "config chosen for those strides (one that promises aligned rows, kept by "
        "prune_configs_by) was used again for c's rows 83 apart. autotune keeps its choice per "
        "value of the key: put what the pruning reads, the row strides' alignment, in it too."
    )
    hints = dataclasses.replace(HINTS, outside=cached, unwritten=cached, values=cached, nan=cached)
    case = make_case(impl, 88, 72, 40, seed=3, gaps=(0, 0, 11), hints=hints)
    run_case(dataclasses.replace(case, through_strides=True))


@check("k_tail")
@pytest.mark.parametrize(
    "shape",
    [
        *mnk((64, 48, 45), (96, 32, 100), gpu=[(*MANY_TILES, 45)]),
        drawn(SIDE, SIDE, (16, 256), offsets=(-3, 1, 5)),
    ],
)
def test_k_tail(impl, shape):
    run_case(make_case(impl, *sides(shape, seed=4), seed=4, hints=K_HINTS))


@check("k_tail")
def test_k_tail_after_another_k(impl):
    """The same M and N with a K that every block divides, then with a tail: an autotune key
    without K keeps the config chosen the first time, one whose pruning may have dropped the
    K mask (EVEN_K in the configs)."""
    run_case(make_case(impl, 40, 24, 256, seed=4, hints=K_HINTS))
    cached = (
        "M and N were the same in the call before, with K = 256: a config chosen for that K "
        "(one without the K mask, kept by prune_configs_by for a K its block divides) was "
        "used again for this one. autotune keeps its choice per value of the key: key=['M', "
        "'N', 'K'] chooses again for another K."
    )
    hints = dataclasses.replace(K_HINTS, outside_read=cached, values=cached, nan=cached)
    run_case(make_case(impl, 40, 24, 45, seed=4, hints=hints))


# K in several steps and a tail of every config, as a GPU would run each (steps of up to 256
# there): a remainder worked out with one config's block size shows in the others. 544 and 96
# are multiples of 32 and not of 64: a K mask dropped where K is a multiple of a smaller
# config's BLOCK_SIZE_K (an EVEN_K heuristic keyed on 32) reads past K in the larger ones
K_STEPS_SHAPES = [(192, 160, 544)] if runtime.current().is_gpu else [(40, 24, 100), (40, 24, 96)]


@check("k_tail")
def test_k_tail_in_every_config(impl):
    kernel = autotuned_kernel_among(impl, kernels_launched(make_case(impl, *GRID_SHAPES[0])))
    if kernel is None or not impl.autotuned(kernel):
        return  # test_k_tail runs its one config; not autotuning costs a check of its own
    for shape in K_STEPS_SHAPES:
        cases = config_cases(impl, kernel, shape, 4, autotune_configs(impl, kernel))
        run_each_config([dataclasses.replace(c, hints=K_HINTS) for c in cases])


@check("edges")
# 108 x 72 x 48: N, K and every row stride are multiples of 8, M is not (and 104, the multiple
# of 8 below it, is no tile's first row)
@pytest.mark.parametrize(
    "shape",
    [
        *mnk(
            (100, 70, 48),
            (33, 17, 64),
            (108, 72, 48),
            gpu=[(1000, 3000, 2000), (*MANY_TILES, 48)],
        ),
        drawn(SIDE, SIDE, SIDE, offsets=(-1, 1, 4)),
    ],
)
def test_mn_edges(impl, shape):
    # rows of a past M and columns of b past N lie past their ends: a GPU faults on them
    case = make_case(impl, *sides(shape, seed=5), seed=5)
    run_case(dataclasses.replace(case, past_end=True))


@check("fp32")
@pytest.mark.parametrize("shape", mnk((64, 32, 2048)))
def test_fp32_accumulator(impl, shape):
    run_case(make_case(impl, *shape, seed=6, positive=True, hints=FP32_HINTS))


@check("launches")
def test_launches_kernel(impl):
    # the shape and layout of a strides case: compiled already
    run_case(make_case(impl, 96, 80, 72, seed=7, b_t=True))
    # then a second call on other inputs: the first call's result must still be its own
    then = make_case(impl, 96, 80, 72, seed=77, b_t=True)
    check_allocates(make_case(impl, 96, 80, 72, seed=7, b_t=True), then)
    # a new c is contiguous whatever a's layout: its strides are its own, not a's
    check_allocates(make_case(impl, 96, 80, 72, seed=7, a_t=True, gaps=(0, 8, 0)))
    if impl.defines("matmul_bias_gelu"):  # the optional epilogue allocates as matmul does
        then = bias_gelu_case(impl, 100, 70, 48, seed=13)
        check_allocates(bias_gelu_case(impl, 100, 70, 48, seed=12), then)


@check("compiles")
def test_compiles_for_gpu(impl):
    launches = run_case(make_case(impl, 100, 70, 48, seed=8)).launches
    autotuned = [launch.kernel for launch in launches if impl.autotuned(launch.kernel)]
    if not runtime.current().is_gpu and autotuned:
        # each config a GPU would run, as it would launch it
        ran = [config_values(c) for c in impl.source_configs(autotuned[-1]) or []]
        cases = gpu_config_cases(impl, autotuned[-1], (100, 70, 48), 8, ran)
        if cases:
            run_each_config(cases)


def int64_advice(tensor: str, offsets: str, stride: str) -> str:
    """What an int32 offset into `tensor` does once one of its rows starts past 2^31 elements."""
    return (
        f"{tensor}'s last row starts past 2^31 elements, where {offsets} * {stride} wraps "
        f"negative in int32: compute {offsets} in int64, from pid_m.to(tl.int64) and "
        "pid_n.to(tl.int64)."
    )


@check("int64")
@pytest.mark.parametrize(
    "shape, layout, advice",
    [
        pytest.param(
            (3, 16, 64),
            {"gaps": (2**30, 0, 0)},
            int64_advice("a", "offs_am", "stride_am"),
            id="a-row-stride-2^30+64",
            marks=needs_gpu("4.3 GB a"),
        ),
        pytest.param(
            (16, 3, 64),
            {"b_t": True, "gaps": (0, 2**30, 0)},
            int64_advice("b = w.t()", "offs_bn", "stride_bn"),
            id="b=w.t()-column-stride-2^30+64",
            marks=needs_gpu("4.3 GB w"),
        ),
        pytest.param(
            (3, 16, 64),
            {"gaps": (0, 0, 2**30)},
            int64_advice("out", "offs_am", "stride_cm"),
            id="out-row-stride-2^30+16",
            marks=needs_gpu("4.3 GB out"),
        ),
    ],
)
def test_offsets_past_2_31(impl, shape, layout, advice):
    # three rows (of a, of w, of out) 2^30 + a row apart: the last starts past 2^31 elements
    hints = dataclasses.replace(HINTS, outside=advice, unwritten=advice, values=advice)
    with big_gpu_memory(40e9):  # no local holds the case, so its buffers go back after it
        case = make_case(impl, *shape, seed=12, hints=hints, **layout)
        run_case(dataclasses.replace(case, through_strides=True, fault_advice=advice))


# ---------------------------------------------------------------------------------------------
# the optional exercise (lesson §7): it earns nothing, but once a file defines matmul_bias_gelu
# that is one more matmul of the file's, and "multiplies matrices" holds it to the same standard
# ---------------------------------------------------------------------------------------------

# A bias+GELU case fails for the epilogue, or for the matmul under it (its shapes have K tails,
# and one has b = w.t()): the advice names both, the matmul's first where the read is a or b's
GELU_HINTS = dataclasses.replace(
    HINTS,
    values="Once the K loop has finished (in the epilogue, not in the loop), add bias[offs_bn] "
    "(one value per column of c) to acc, then apply GELU, 0.5 * x * (1 + erf(x / sqrt(2))), "
    "both in fp32, and only then convert to fp16. If matmul(a, b) alone is wrong at this "
    "shape too, the product is: mask K's last step (k < K - k_step * BLOCK_SIZE_K) and read "
    "each operand through both of its strides.",
    outside_read=f"{HINTS.outside_read} bias holds N values, one per column of c: load "
    "bias[offs_bn] with the mask offs_bn < N.",
)


BIAS_NAN_INTO_C_T = (
    "The judge pads a, b and bias with NaN, and c holds NaN. Here c is a transposed view (out = "
    "buf.t(), a column stride of M), which the cases before it did not have: a load that takes "
    "c's strides for bias's reads outside `bias`. bias[j] is at bias_ptr + j (or j * its own "
    "stride), never j * stride_cn. Otherwise, a load past the end of K was not masked."
)


# GELU's exact form, or its tanh form (within 5e-4 of it), rounded to fp16: a product of small
# integers is exact, so only the epilogue's own error is left to see
GELU_EXACT = Tolerance(1e-3, 1e-3)


def bias_gelu_case(
    impl, M, N, K, *, seed, b_t=False, c_t=False, bias_step=1, integers=False
) -> Case:
    """gelu(a @ b + bias); bias_step 2 makes bias every other value of a longer tensor;
    integers makes a @ b exact, and bias centres each column of it on 0, where GELU bends."""
    case = make_case(
        impl, M, N, K, seed=seed, b_t=b_t, c_t=c_t, integers=integers, hints=GELU_HINTS
    )
    gen = generator(seed + 1)
    bias = torch.randn(N, generator=gen, device=device()).half()
    a, b = (g.tensor.double() for g in case.inputs.values())
    if integers:
        bias = (bias.double() / 2 - (a @ b).mean(dim=0)).half()
        case.tol = GELU_EXACT
        # the product is exact, so values near the right ones are the epilogue's, not rounding
        exact_gelu = (
            "GELU is 0.5 * x * (1 + erf(x / sqrt(2))), to fp16's rounding here (its tanh "
            "form, 0.5 * x * (1 + tanh(0.79788456 * (x + 0.044715 * x^3))), is within 5e-4 of "
            "it; x * sigmoid(1.702 * x) is up to 0.02 off): compute it in fp32 after adding "
            "bias[offs_bn], then convert to fp16."
        )
        case.hints = dataclasses.replace(case.hints, values=exact_gelu, near=exact_gelu)
    expected = torch.nn.functional.gelu(a @ b + bias.double())
    if c_t:
        # on a GPU, a read past bias's end shows only as the NaN the judge pads it with
        case.hints = dataclasses.replace(case.hints, nan=BIAS_NAN_INTO_C_T)
    if bias_step > 1:
        strided = (
            f"bias here is every {bias_step}nd value of a longer tensor, a stride of "
            f"{bias_step}: read it through its stride, bias_ptr + offs_bn * stride_bias, or "
            "pass the kernel bias.contiguous()."
        )
        case.hints = dataclasses.replace(
            case.hints, outside_read=strided, values=strided, nan=strided
        )
    return dataclasses.replace(
        case,
        name=f"matmul_bias_gelu, {case.name}"
        + (f", bias = v[::{bias_step}]" if bias_step > 1 else ""),
        fn=impl.matmul_bias_gelu,
        inputs=case.inputs | {"bias": Guarded.holding(bias, row_gap=bias_step - 1)},
        expected=expected.half(),
    )


@check("multiplies")
@pytest.mark.parametrize(
    "shape, layout",
    [
        pytest.param((100, 70, 48), {}, id="bias+GELU-100x70x48"),
        pytest.param((64, 48, 40), {"b_t": True}, id="bias+GELU-64x48x40-w.t()"),
        # into out = buf.t(): bias has a stride of its own, not c's column stride
        pytest.param((64, 48, 40), {"c_t": True}, id="bias+GELU-64x48x40-out=buf.t()"),
        # a bias that is every other value of a longer tensor: read through its stride, or
        # made contiguous first
        pytest.param((100, 70, 48), {"bias_step": 2}, id="bias+GELU-100x70x48-bias[::2]"),
        # an exact product, so that an approximation of GELU shows, not hidden in a matmul's
        # tolerance
        pytest.param((64, 48, 16), {"integers": True}, id="bias+GELU-64x48x16-integers"),
        # K in several steps of every config that runs (on a GPU, steps of up to 256): an
        # epilogue inside the K loop shows
        pytest.param(
            (192, 160, 544) if runtime.current().is_gpu else (40, 24, 100),
            {},
            id="bias+GELU-long-K",
        ),
    ],
)
def test_multiplies_with_bias_gelu(impl, shape, layout):
    if not impl.defines("matmul_bias_gelu"):
        return  # nothing to hold to it: the exercise is optional
    run_case(bias_gelu_case(impl, *shape, seed=11, **layout))


def bench_inputs(shape: Shape) -> tuple[torch.Tensor, torch.Tensor]:
    m, n, k = shape.params["mnk"]
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    if shape.params.get("b_t"):
        return a, torch.randn(n, k, device="cuda", dtype=torch.float16).t()
    return a, torch.randn(k, n, device="cuda", dtype=torch.float16)


def _shape(m: int, n: int, k: int, b_t: bool = False) -> Shape:
    label = (f"{m}^3" if m == n == k else f"{m}x{n}x{k}") + (", b = w.t()" if b_t else "")
    return Shape(
        label,
        float(m * n * k) ** (1 / 3),
        {"mnk": (m, n, k), "b_t": b_t},
        series="b = w.t()" if b_t else "row-major",
    )


# The benchmark, over the shapes the spec declares (separate from the test shapes)
BENCH = Bench(
    entry="matmul",
    shapes=[_shape(*p["mnk"], b_t=p["b_t"]) for p in SPEC.bench_shapes],
    make_inputs=bench_inputs,
    torch_fn=torch.matmul,
    torch_name="cuBLAS (torch.matmul)",
    unit="TFLOP/s",
    flops=matmul_flops,
    bytes_moved=matmul_bytes,
    compute="tensor",
    tolerance=lambda s: TOLERANCE,
    size_name="(M N K)^(1/3)",
    reference="t4_matmul_persistent",  # the persistent kernel on Hopper
)
