"""Helpers the graded suites use to catch a learner's mistakes and name them.

- `Guarded`: a tensor inside a larger buffer whose padding holds a canary, so writes outside
  the tensor, elements never written and unmasked reads that reach the result all show.
- `compare()`: a closeness check that reports how many elements differ, where, and by how much.
- `run_case()`: one call of a learner's host function, and every check around it. The runner
  calls it on stand-ins and records what it asks for; the judge's executor runs that record
  (the learner's kernels, from the judge's reading of the file) on the judge's buffers.

The judge grades the buffers it owns, which only its own execution of the kernels wrote. What
the runner's record says of the host code (torch computing, copies) explains a result.
"""

import contextlib
import dataclasses
import math
import os
import random
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import torch
import triton

from drills import catalog, runtime, spec
from drills.errors import explain  # noqa: F401 - the suites' import of it
from drills.failures import Kind
from drills.judge import gpu_compile
from drills.judge.remote import LearnerError, RemoteFunction, buffer_ref, shared_empty


def checks_of(declared: spec.Spec):
    """The `@check(id)` of a drill's suite: it marks a test function's cases as cases of the
    check its spec declares under `id`, which earns its points when every one of them passes
    (a check may span several test functions)."""

    def check(id: str):
        c = declared.check(id)
        return pytest.mark.check(id=c.id, name=c.name, points=c.points)

    return check


def needs_gpu(reason: str):
    """Mark a case that only a real GPU can run (skipped, with the reason, on the interpreter)."""
    return pytest.mark.skipif(not runtime.current().is_gpu, reason=f"needs a GPU: {reason}")


# a case's skip reason that starts so is not a GPU-only case: the plugin reports it not run
NOT_RUN = "not run: "


class CaseFailed(pytest.fail.Exception):
    """A case's verdict: the kind of mistake it showed (drills.failures), its message, and the
    case's name in it (its label; "" for a check that fails as a whole)."""

    def __init__(self, kind: Kind, message: str, label: str = ""):
        super().__init__(f"case {label}: {message}" if label else message, pytrace=False)
        self.kind, self.text, self.label = kind, message, label


def fail(kind: Kind, message: str, label: str = "") -> typing.NoReturn:
    raise CaseFailed(kind, message, label)


def not_applicable(why: str):
    """Leave out a case that does not apply to this file (a probe of a helper it does not
    have): it is reported not run, neither passed nor GPU-only, and the check's verdict rests
    on its other cases."""
    pytest.skip(NOT_RUN + why)


def needs_bf16():
    """Mark a bf16 case: it needs a GPU, and one of sm_80 (Ampere) or newer, where Triton has
    bf16 (its own tests skip bf16 below that: check_type_supported in test_core.py). The T4 of a
    free notebook is sm_75: there the case is skipped, like a GPU-only case on the CPU."""
    if not runtime.current().is_gpu:
        return needs_gpu("the interpreter has no bf16")
    major, minor = torch.cuda.get_device_capability()
    return pytest.mark.skipif(
        major < 8, reason=f"needs a GPU with bf16 (sm_80 or newer); this one is sm_{major}{minor}"
    )


def device() -> str:
    return runtime.current().device


# Drawn fresh in every judge, so that no file can know the inputs before it is graded (a case's
# own seed only tells its inputs apart from another case's). DRILLS_SEED repeats a run.
RUN_SEED = int(os.environ.get("DRILLS_SEED") or int.from_bytes(os.urandom(6), "little"))


def generator(seed: int) -> torch.Generator:
    """The random inputs of the case numbered `seed`, for this run."""
    return torch.Generator(device=device()).manual_seed(RUN_SEED * 1000 + seed)


# The sizes kernels pick for blocks, tiles, groups and alignment: a drawn side lies next to a
# multiple of one of them, where a mask, a grid or a group's clipping goes wrong.
BOUNDARIES = (8, 16, 32, 64, 128)


@dataclass(frozen=True)
class Drawn:
    """A case's sides, drawn afresh in every run from RUN_SEED, so that no kernel is fitted to
    the fixed cases alone: each side is a multiple of one of `near` moved by one of `offsets`,
    within its (least, most). The case's name shows the sides; DRILLS_SEED repeats them."""

    bounds: tuple[tuple[int, int], ...]
    near: tuple[int, ...] = BOUNDARIES
    offsets: tuple[int, ...] = (-1, 0, 1)

    def sides(self, seed: int) -> tuple[int, ...]:
        rng = random.Random(RUN_SEED * 1000 + seed)
        return tuple(self.side(rng, least, most) for least, most in self.bounds)

    def side(self, rng: random.Random, least: int, most: int) -> int:
        base = rng.choice([b for b in self.near if b <= most] or [least])
        multiple = base * rng.randint(max(1, -(-least // base)), max(1, most // base))
        return min(max(multiple + rng.choice(self.offsets), least), most)


def drawn(*bounds: tuple[int, int], **kwargs) -> "pytest.param":
    """A parametrize entry whose sides are drawn for this run (see Drawn)."""
    return pytest.param(Drawn(bounds, **kwargs), id="drawn")


def sides(shape, seed: int):
    """A case's sides: fixed ones as they are, drawn ones drawn for this run (one side as an
    int, like a fixed length)."""
    if not isinstance(shape, Drawn):
        return shape
    drawn_sides = shape.sides(seed)
    return drawn_sides[0] if len(drawn_sides) == 1 else drawn_sides


def small_integers(*size: int, generator: torch.Generator, device: str) -> torch.Tensor:
    """Random 0s, 1s and 2s, drawn like torch.randn(*size): a matmul of them is exact in fp16
    while every sum stays below 2048, so it must match bit for bit."""
    return torch.randint(0, 3, size, generator=generator, device=device).float()


def big_gpu_memory_lock() -> int:
    """The lock the parallel suites of one grade share, in the checkout's .drills/, made by the
    judge's user for itself alone: never a path in a shared folder, where another user could
    have left a link or a file of their own."""
    folder = catalog.ROOT / ".drills"
    folder.mkdir(mode=0o700, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    return os.open(folder / "big-gpu-memory.lock", flags, 0o600)


@contextlib.contextmanager
def big_gpu_memory(needed_bytes: float) -> Iterator[None]:
    """Run a case that needs a large share of GPU memory one process at a time (the suites
    run in parallel), skipping it when the memory is not there, and hand it back afterwards."""
    import fcntl
    import gc
    import traceback

    with open(big_gpu_memory_lock(), "r+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            free, _ = torch.cuda.mem_get_info()
            if free < needed_bytes:
                pytest.skip(
                    f"needs {needed_bytes / 1e9:.0f} GB of free GPU memory, "
                    f"{free / 1e9:.0f} GB free"
                )
            try:
                yield
            except torch.cuda.OutOfMemoryError:
                # the judge's own allocations: the free memory it saw went to the other drills'
                # processes meanwhile (their caching allocators keep what they freed)
                pytest.skip(
                    f"needs {needed_bytes / 1e9:.0f} GB of free GPU memory, which the drills "
                    "graded beside this one took"
                )
        except BaseException as e:
            # a failing case's traceback keeps its frames, and their tensors, alive
            traceback.clear_frames(e.__traceback__)
            raise
        finally:
            gc.collect()
            torch.cuda.empty_cache()


# ---------------------------------------------------------------------------------------------
# Canary-padded buffers
# ---------------------------------------------------------------------------------------------

_BITS = {
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
    torch.float64: torch.int64,
    torch.int32: torch.int32,
    torch.int64: torch.int64,
}

# Quiet NaNs with distinct payloads, so a padding NaN read into a result is told apart from
# an output element that was never written. Integers get values far outside any test's range.
_INPUT_CANARY = {
    torch.float32: 0x7FC0_0A11,
    torch.float16: 0x7E11,
    torch.bfloat16: 0x7FC1,
    torch.float64: 0x7FF8_0000_0000_0A11,
}
_OUTPUT_CANARY = {
    torch.float32: 0x7FDE_AD00,
    torch.float16: 0x7E5A,
    torch.bfloat16: 0x7FDA,
    torch.float64: 0x7FFD_EAD0_0000_0000,
}
_INT_INPUT_CANARY = 0x7A3A_3A3A
_INT_OUTPUT_CANARY = -0x7C3C_3C3C


def _canary_bits(dtype: torch.dtype, output: bool) -> int:
    if dtype.is_floating_point:
        return (_OUTPUT_CANARY if output else _INPUT_CANARY)[dtype]
    return _INT_OUTPUT_CANARY if output else _INT_INPUT_CANARY


def _bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(_BITS[t.dtype])


# Canary elements before and after every guarded tensor: more than a block is wide, so a store
# that runs a whole block past the end lands in the canary, not in someone else's memory.
GUARD = 8192


class Guarded:
    """A 1-D or 2-D tensor living inside a bigger buffer filled with a canary.

    `row_gap` puts extra canary elements between the rows of a 2-D tensor (a row stride larger
    than its width), so a kernel that ignores the row stride reads or writes the gaps.
    `transposed` stores it column by column, so that `tensor` is a transposed view (like
    `w.t()`), with a row stride of 1. On a 1-D tensor, `row_gap` puts canaries between its
    elements: a stride of 1 + row_gap, like v[::2].
    """

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        *,
        output: bool,
        row_gap: int = 0,
        transposed: bool = False,
        dev: str | None = None,
    ):
        if len(shape) not in (1, 2):
            raise ValueError(f"Guarded supports 1-D and 2-D tensors, got shape {shape}")
        self.made_with = {
            "shape": shape,
            "dtype": dtype,
            "output": output,
            "row_gap": row_gap,
            "transposed": transposed,
            "dev": dev,
        }
        shape = tuple(reversed(shape)) if transposed else tuple(shape)
        # a 1-D tensor is a column: its elements are rows of one, row_gap + 1 apart
        rows, cols = (shape[0], 1) if len(shape) == 1 else shape
        row_stride = cols + row_gap
        span = (rows - 1) * row_stride + cols if rows and cols else 0
        self.span = span  # buffer elements from the tensor's first element to its last, + 1
        self.canary = _canary_bits(dtype, output)
        self.buffer = shared_empty(GUARD + span + GUARD, dtype, dev or device())
        _bits(self.buffer).fill_(self.canary)
        strides = (row_stride, 1) if len(shape) == 2 else (row_stride,)
        self.tensor = self.buffer.as_strided(shape, strides, GUARD)
        inside = torch.zeros(self.buffer.shape, dtype=torch.bool, device=self.buffer.device)
        inside.as_strided(shape, strides, GUARD).fill_(True)
        self._inside = inside
        if transposed:
            self.tensor = self.tensor.t()

    @classmethod
    def holding(cls, values: torch.Tensor, **kwargs) -> "Guarded":
        """An input: a guarded copy of `values`, whose padding reads as NaN."""
        g = cls(tuple(values.shape), values.dtype, output=False, dev=values.device.type, **kwargs)
        g.tensor.copy_(values)
        return g

    def written(self) -> torch.Tensor:
        """Boolean mask, shaped like the buffer, of the elements that no longer hold the canary."""
        return _bits(self.buffer) != self.canary

    def read_at(self, offsets: torch.Tensor) -> torch.Tensor:
        """The buffer's values, in float64, at these offsets from the tensor's first element:
        the padding's NaN included, NaN past the buffer's ends."""
        at = GUARD + offsets
        inside = (at >= 0) & (at < self.buffer.numel())
        values = self.buffer[at.clamp(0, self.buffer.numel() - 1)].double()
        return torch.where(inside, values, torch.full_like(values, math.nan))

    def layout(self, row_stride: int, col_stride: int) -> torch.Tensor:
        """Boolean mask, shaped like the buffer, of where the elements of a 2-D tensor of this
        shape would lie with these strides (those that fall inside the buffer)."""
        rows, cols = self.tensor.shape
        dev = self.buffer.device
        offsets = (
            GUARD
            + torch.arange(rows, device=dev)[:, None] * row_stride
            + torch.arange(cols, device=dev)[None, :] * col_stride
        ).flatten()
        mask = torch.zeros(self.buffer.shape, dtype=torch.bool, device=dev)
        mask[offsets[(offsets >= 0) & (offsets < mask.numel())]] = True
        return mask

    def like(self) -> "Guarded":
        """A new output of the same shape, dtype and layout, all canary."""
        return Guarded(**self.made_with)

    def snapshot(self) -> torch.Tensor:
        return _bits(self.buffer).clone()

    def changed_since(self, snapshot: torch.Tensor) -> int:
        return int((_bits(self.buffer) != snapshot).sum())

    def written_outside(self) -> list[int]:
        """Buffer offsets outside the tensor whose canary was overwritten, relative to element 0."""
        hit = self.written() & ~self._inside
        return [i - GUARD for i in torch.nonzero(hit).flatten().tolist()]

    def never_written(self) -> torch.Tensor:
        """Boolean mask, shaped like the tensor, of elements that still hold the canary."""
        return _bits(self.tensor) == self.canary

    def like_tensor(self, per_element: torch.Tensor) -> torch.Tensor:
        """A table of one entry per buffer element, seen as the tensor is seen in the buffer."""
        return per_element.as_strided(self.tensor.shape, self.tensor.stride(), GUARD)

    def reset(self) -> None:
        """Every element the canary again, as before a call."""
        _bits(self.buffer).fill_(self.canary)


# ---------------------------------------------------------------------------------------------
# What a call did, as the runner tells it
# ---------------------------------------------------------------------------------------------


@dataclass
class Launch:
    """One kernel launch of a runner's record, as the judge ran it: a tensor argument is
    {"tensor": dtype, "ref": the buffer it views ("b3", or "t1" for a temporary), ...}, a
    tensor descriptor {"descriptor": triton's type for it, "base": ...}; plain values are as
    they were."""

    kernel: str
    grid: tuple[int, ...]
    args: dict

    @classmethod
    def from_step(cls, step: dict) -> "Launch":
        grid = step.get("grid") if isinstance(step.get("grid"), list) else []
        args = step.get("args") if isinstance(step.get("args"), dict) else {}
        grid = tuple(g for g in grid if isinstance(g, int))
        return cls(str(step.get("kernel", "?"))[:200], grid, args)

    def programs(self) -> int:
        return math.prod(self.grid)

    def size(self, name: str) -> int | None:
        """A block size or count the launch passed (BLOCK_SIZE, ROWS_PER_PROGRAM), where it is
        one a message can divide by: a positive int. A zero, a negative or a bool is the
        learner's mistake, which the values show; the judge's words never fail on it."""
        value = self.args.get(name)
        return value if type(value) is int and value > 0 else None

    def touches(self, t: torch.Tensor) -> bool:
        """Whether a tensor (or tensor descriptor) argument of this launch views the buffer `t`
        lives in."""
        wanted = buffer_ref(t)
        return any(_ref_of(a) == wanted for a in self.args.values())


def _ref_of(value) -> str | None:
    if not isinstance(value, dict):
        return None
    if "descriptor" in value:
        value = value.get("base")
    return value.get("ref") if isinstance(value, dict) else None


# ---------------------------------------------------------------------------------------------
# Comparing values
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """|got - expected| <= atol + rtol * size, element by element. The size is |expected|,
    unless `size` gives another (shaped like expected, named `size_name` in reports)."""

    atol: float
    rtol: float
    size: torch.Tensor | None = field(default=None, compare=False)
    size_name: str = "|expected|"


def dot_product_tolerance(tol: Tolerance, a: torch.Tensor, b: torch.Tensor) -> Tolerance:
    """`tol` for a @ b, measured against |a| @ |b|: a sum of products rounds in proportion to
    the size of its terms, not of the total, which cancels to near 0 for some elements. So a
    kernel that rounds partial sums (split-K atomics into fp16, one rounding per split) is
    judged by the error it can have, and an element that cancels is not judged by its own
    smallness. Wrong elements are still off by about the size of the values."""
    size = a.double().abs() @ b.double().abs()
    return dataclasses.replace(tol, size=size, size_name="(|a| @ |b|)")


# torch.testing's defaults: tight enough that an all-zero or constant output never passes.
TOLERANCES = {
    torch.float32: Tolerance(1e-5, 1.3e-6),
    torch.float16: Tolerance(1e-5, 1e-3),
    torch.bfloat16: Tolerance(1e-5, 1.6e-2),
    torch.int32: Tolerance(0, 0),
    torch.int64: Tolerance(0, 0),
}

DTYPE_NAMES = {
    torch.float32: "fp32",
    torch.float16: "fp16",
    torch.bfloat16: "bf16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.float64: "fp64",
}


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for size in reversed(shape):
        out.append(flat % size)
        flat //= size
    return tuple(reversed(out))


def _fmt_index(idx: tuple[int, ...]) -> str:
    return str(idx[0]) if len(idx) == 1 else "(" + ", ".join(map(str, idx)) + ")"


def _fmt_value(x: torch.Tensor) -> str:
    return f"{x.item():.8g}" if x.dtype.is_floating_point else str(x.item())


_CHUNK = 1 << 25  # elements compared at a time, so 2^31-element outputs fit in memory


def _outside(err, g, e, size, tol: Tolerance) -> torch.Tensor:
    """Which elements the tolerance does not allow (NaN never matches)."""
    return ~(err <= tol.atol + tol.rtol * size) & ~(g == e)


def wrong_elements(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> torch.Tensor:
    """Boolean mask, shaped like got, of the elements compare() counts as wrong."""
    g, e = got.double(), expected.double().to(got.device)
    size = e.abs() if tol.size is None else tol.size.to(got.device).double()
    return _outside((g - e).abs().nan_to_num(nan=math.inf), g, e, size, tol)


TILE_MAP_ROWS, TILE_MAP_WIDTH = 20, 80  # rows of tiles shown, and the terminal's columns


@dataclass
class TileMap:
    """The output's tiles, as the judge saw them: each tile's mark ('.' right, 'x' wrong, '-'
    never written) and, where the interpreter noted them, the programs whose stores it holds
    (linear ids: pid_0 + pid_1 * grid_0 + pid_2 * grid_0 * grid_1)."""

    block: tuple[int, int]
    rows: int  # rows and columns of tiles in all; marks and programs hold the first ones
    columns: int
    marks: list[str]
    programs: list[list[list[int]]] | None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    def text(self) -> str:
        bm, bn = self.block
        if self.programs is None:
            head = f"the output in tiles of {bm} x {bn} ('.' right, 'x' wrong, '-' never written):"
        else:
            head = f"the output in tiles of {bm} x {bn}, by the program whose stores each holds:"
        lines = [
            f"  row {i:>3}   {' '.join(self.cell(i, j) for j in range(len(marks)))}"
            for i, marks in enumerate(self.marks)
        ]
        if lines and len(self.marks[0]) < self.columns:
            lines[0] += f" ... {self.columns} in all"
        if len(self.marks) < self.rows:
            lines.append(f"  ... {self.rows} rows of tiles in all")
        if self.programs is None:
            lines.append("  (which program stored each tile is seen on the CPU interpreter only)")
        else:
            lines.append("  ('.' right, 'x' wrong, '-' never written; '*' several programs)")
        return "\n".join([head, *lines])

    def cell(self, i: int, j: int) -> str:
        if self.programs is None:
            return self.marks[i][j]
        programs = self.programs[i][j]
        who = "" if not programs else "*" if len(programs) > 1 else str(programs[0])
        return f"{who}{self.marks[i][j]}".rjust(self.cell_width())

    def cell_width(self) -> int:
        ids = [p for row in self.programs or [] for tile in row for p in tile]
        return len(str(max(ids, default=0))) + 1


def tile_map(
    unwritten: torch.Tensor,
    wrong: torch.Tensor,
    block: tuple[int, int],
    writers: torch.Tensor | None = None,
) -> TileMap:
    """The output's tiles of block[0] x block[1] elements, as many as fit 80 columns: what a
    learner otherwise draws by hand to see which programs went wrong. `writers`, shaped like
    the output, holds the program whose store each element holds (-1 where none)."""
    bm, bn = block
    rows, cols = -(-unwritten.shape[0] // bm), -(-unwritten.shape[1] // bn)
    widest = len(str(max(int(writers.max()), 0))) + 2 if writers is not None else 2
    shown_cols = min(
        cols, (TILE_MAP_WIDTH - len("  row 123   ") - len(" ... 999 in all")) // widest
    )
    marks, programs = [], []
    for i in range(min(rows, TILE_MAP_ROWS)):
        tiles = [
            (slice(i * bm, (i + 1) * bm), slice(j * bn, (j + 1) * bn)) for j in range(shown_cols)
        ]
        marks.append(
            "".join("-" if unwritten[t].any() else "x" if wrong[t].any() else "." for t in tiles)
        )
        if writers is not None:
            programs.append([stored_by(writers[t]) for t in tiles])
    return TileMap(block, rows, cols, marks, programs if writers is not None else None)


def stored_by(writers: torch.Tensor) -> list[int]:
    """The programs whose stores these elements hold (at most 8 of them)."""
    return writers[writers >= 0].unique().tolist()[:8]


# M and N of a matmul case with more tiles of c than a GPU has SMs (132 on an H100 or H200), and
# not a multiple of them, for every tile size a config picks (256 x 128 tiles: 12 x 32 = 384): a
# persistent kernel's programs then take several tiles each, and some one more than others
MANY_TILES = (3001, 4001)


def matmul_tile(launch: "Launch | None") -> tuple[int, int] | None:
    """A matmul launch's tile of c, from its block constexprs (the drills' names, or the
    BLOCK_M / BLOCK_N of split-K kernels in the style of triton.ops.matmul)."""
    args = launch.args if launch else {}
    bm = next((args[n] for n in ("BLOCK_SIZE_M", "BLOCK_M") if isinstance(args.get(n), int)), 0)
    bn = next((args[n] for n in ("BLOCK_SIZE_N", "BLOCK_N") if isinstance(args.get(n), int)), 0)
    return (bm, bn) if bm > 0 and bn > 0 else None


@dataclass
class _Tally:
    bad: int = 0
    nan: int = 0
    inf: int = 0
    worst_abs: tuple[float, int] = (0.0, -1)  # (error, flat index)
    worst_rel: float = 0.0
    first: list[int] = field(default_factory=list)

    def add(
        self,
        g: torch.Tensor,
        e: torch.Tensor,
        size: torch.Tensor,
        tol: Tolerance,
        offset: int,
        show: int,
    ):
        err = (g - e).abs().nan_to_num(nan=math.inf)
        bad = _outside(err, g, e, size, tol)
        self.bad += int(bad.sum())
        self.nan += int((torch.isnan(g) & ~torch.isnan(e)).sum())
        self.inf += int((torch.isinf(g) & ~torch.isinf(e)).sum())
        finite = torch.isfinite(g) & torch.isfinite(e)
        if bool(finite.any()):
            finite_err = torch.where(finite, err, torch.zeros_like(err))
            i = int(finite_err.argmax())
            if finite_err[i] > self.worst_abs[0]:
                self.worst_abs = (float(finite_err[i]), offset + i)
            rel = torch.where(finite, err / e.abs().clamp_min(1e-30), torch.zeros_like(err))
            self.worst_rel = max(self.worst_rel, float(rel.max()))
        if len(self.first) < show:
            found = torch.nonzero(bad).flatten()[: show - len(self.first)]
            self.first += (found + offset).tolist()


def _percent(share: float) -> str:
    """0.1% and up to one decimal; below that, two significant digits, never 0.0%."""
    return f"{100 * share:.1f}%" if share >= 1e-3 else f"{100 * share:.2g}%"


NEAR = 0.01  # every error under 1% of the largest value: rounding, not a wrong element


def _near_miss(got: torch.Tensor, expected: torch.Tensor) -> float | None:
    """The largest error as a share of the largest expected value, when every element is
    finite and that share is under NEAR; else None. A wrong address, a missing block of K or a
    mask gone wrong is off by about the size of the values themselves."""
    got, expected = got.double(), expected.double().to(got.device)
    scale = float(expected.abs().max()) if expected.numel() else 0.0
    if not (scale > 0 and bool(torch.isfinite(got).all())):
        return None
    share = float((got - expected).abs().max()) / scale
    return share if share < NEAR else None


def _values_advice(got: torch.Tensor, expected: torch.Tensor, hints: "Hints") -> str:
    """The advice for wrong values: the drill's near-miss advice when they are close."""
    share = _near_miss(got, expected)
    if share is not None and hints.near:
        return (
            f"Every error is under {_percent(share)} of the largest value: rounding, not a "
            f"wrong element. {hints.near}"
        )
    return hints.values


def _chunks(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> Iterator[tuple]:
    """(got, expected, the size the tolerance scales with, its first flat index) for each
    _CHUNK elements, in float64."""
    flat_got = got.detach().reshape(-1)
    flat_expected = expected.detach().to(got.device).reshape(-1)
    flat_size = None if tol.size is None else tol.size.to(got.device).reshape(-1)
    for start in range(0, flat_got.numel(), _CHUNK):
        part = slice(start, start + _CHUNK)
        g, e = flat_got[part].double(), flat_expected[part].double()
        size = e.abs() if flat_size is None else flat_size[part].double()
        yield g, e, size, start


def _any_wrong(got: torch.Tensor, expected: torch.Tensor, tol: Tolerance) -> torch.Tensor:
    """Whether any element is outside the tolerance, as a tensor on got's device: the whole
    output is compared with one wait for the GPU (the report of what is wrong waits on it for
    every chunk, which a 2^31-element output made cost half a second)."""
    wrong = torch.zeros((), dtype=torch.bool, device=got.device)
    for g, e, size, _ in _chunks(got, expected, tol):
        wrong |= _outside((g - e).abs().nan_to_num(nan=math.inf), g, e, size, tol).any()
    return wrong


def compare(
    got: torch.Tensor,
    expected: torch.Tensor,
    tol: Tolerance,
    owner: Callable[[tuple[int, ...]], str] = lambda idx: "",
    show: int = 5,
) -> str | None:
    """None when `got` is close to `expected`, else a report a learner can act on."""
    if not bool(_any_wrong(got, expected, tol)):
        return None
    tally = _Tally()
    for g, e, size, start in _chunks(got, expected, tol):
        tally.add(g, e, size, tol, start, show)
    shape = tuple(got.shape)
    share = f"{tally.bad} of {got.numel()} elements ({_percent(tally.bad / got.numel())}) are wrong"
    lines = [
        f"{share} (allowed: |got - expected| <= {tol.atol:g} + {tol.rtol:g} * {tol.size_name})"
    ]
    if tally.nan or tally.inf:
        lines.append(
            f"NaN where a number was expected: {tally.nan}; "
            f"inf where a finite number was expected: {tally.inf}"
        )
    if tally.worst_abs[1] >= 0 and tally.worst_abs[0] > 0:
        lines.append(
            f"max abs error {tally.worst_abs[0]:.4g} at index "
            f"{_fmt_index(_index(tally.worst_abs[1], shape))}; max rel error "
            f"{tally.worst_rel:.4g}"
        )
    lines.append("first wrong elements:")
    for flat in tally.first:
        idx = _index(flat, shape)
        who = owner(idx)
        where = f"  ({who})" if who else ""
        lines.append(
            f"  [{_fmt_index(idx)}] got {_fmt_value(got[idx])}, "
            f"expected {_fmt_value(expected[idx])}{where}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# One call of a learner's host function, with every check around it
# ---------------------------------------------------------------------------------------------


@dataclass
class Hints:
    """What each finding most likely means in this drill, in the learner's words."""

    outside: str = ""
    outside_read: str = ""
    unwritten: str = ""
    nan: str = ""
    values: str = ""
    # wrong values that are all close to the right ones: what rounding that large means here
    near: str = ""
    no_launch: str = (
        "Every check needs the result to come from your Triton kernel, launched "
        "with kernel[grid](...)."
    )


_notes: list[str] = []  # what the running case wants the learner to know, though it passed


def note(text: str) -> None:
    """Tell the learner something about a case that passes (a config this GPU skipped)."""
    _notes.append(text)


def take_notes() -> list[str]:
    taken = _notes[:]
    _notes.clear()
    return taken


_tile_maps: list[TileMap] = []


def take_tile_map() -> dict | None:
    """The map of the output's tiles a failing case's message drew, as JSON, or None."""
    taken = _tile_maps[-1].to_json() if _tile_maps else None
    _tile_maps.clear()
    return taken


@dataclass
class Case:
    """One call: the inputs (guarded), the output buffer the test owns, and the answer."""

    name: str
    fn: RemoteFunction
    inputs: dict[str, Guarded]
    out: Guarded
    expected: torch.Tensor
    tol: Tolerance
    hints: Hints
    owner: Callable[[Launch | None, tuple[int, ...]], str] = lambda launch, idx: ""
    kwargs: dict = field(default_factory=dict)
    # the only autotune config to try, of the kernel named "kernel": {"kernel", "index": i}, the
    # i-th of the learner's list, or on the CPU, the i-th of the list a GPU machine makes,
    # {"kernel", "configs": [{"kwargs", "num_warps", "num_stages"}, ...], "index": i}
    config: dict | None = None
    # the constexprs and options that config sets, when the judge read them in the source: the
    # record's launch must use them
    launched_with: dict = field(default_factory=dict)
    # the check is about strides: a torch copy (of an operand, or into `out`) sidesteps them
    through_strides: bool = False
    # the call also runs what autotune's timing of each config runs on a GPU, on the call's own
    # tensors, as on the first call of a shape
    benchmarked: bool = False
    # what wrong values say about the mistake, given the last launch; "" when nothing particular
    diagnose: Callable[[Launch | None, torch.Tensor], str] = lambda launch, out: ""
    # what the output's unwritten elements (a mask) say about the mistake, given the last
    # launch; "" when nothing particular
    why_unwritten: Callable[[Launch | None, torch.Tensor], str] = lambda launch, unwritten: ""
    # the tile of the output each program owns, given the last launch, for a map of them
    tile: Callable[[Launch | None], tuple[int, int] | None] = lambda launch: None
    # what a tensor's elements touched outside it (its name, offsets from its first element)
    # say about the mistake, given the last launch; "" when nothing particular
    why_outside: Callable[[Launch | None, str, list[int]], str] = lambda launch, name, offs: ""
    # on a GPU, each input ends where mapped memory ends, so that a load past its last element
    # faults (the interpreter sees every read outside an input without this)
    past_end: bool = False
    # for a case whose offsets pass 2^31 elements: what a GPU fault most likely means (such
    # offsets computed in int32)
    fault_advice: str = ""
    # once the values are right: what the program that stored each element of the output (its
    # linear id) says is wrong with the kernel's own order of work, given the last launch; ""
    # when nothing is. The interpreter notes each store's program; a GPU's are found by cutting
    # the grid (writers_by_prefix)
    stores: Callable[[Launch | None, torch.Tensor], str] | None = None


def map_of_tiles(case: "Case", watched: "Watched", unwritten: torch.Tensor) -> str:
    """A new line and the map of the output's tiles, where the case knows the launch's tile
    and the output is 2-D with more than one tile; else "". The plugin reports the same map
    with the case's result (take_tile_map)."""
    block = case.tile(watched.launches[-1] if watched.launches else None)
    out = case.out.tensor
    if block is None or out.dim() != 2 or (out.shape[0] <= block[0] and out.shape[1] <= block[1]):
        return ""
    wrong = wrong_elements(out, case.expected, case.tol)
    drawn_map = tile_map(unwritten, wrong, block, watched.writers)
    _tile_maps.append(drawn_map)
    return "\n" + drawn_map.text()


def misplaced_stores(out: Guarded, name: str = "out") -> str:
    """When the stores into a 2-D output landed exactly where another layout of it would put
    them (a column stride taken as 1, a row stride taken as the width or rounded down to a
    multiple of 8 or 16, the strides swapped), which one; else "". One mistake, one message:
    the stray stores, the unwritten elements and the wrong values it leaves all follow."""
    t = out.tensor
    if t.dim() != 2:
        return ""
    cols = t.shape[1]
    row_stride, col_stride = t.stride()
    written, truth = out.written(), out.layout(row_stride, col_stride)
    if torch.equal(written, truth) or not bool(written.any()):
        return ""
    guesses = [
        ((row_stride, 1), "its column stride were 1"),
        ((cols, 1), f"it were contiguous (row stride {cols}, column stride 1)"),
        ((col_stride, row_stride), "its two strides were swapped"),
    ] + [
        ((row_stride // a * a, col_stride), f"its row stride were a multiple of {a}")
        for a in (8, 16)
        if row_stride % a
    ]
    for strides, what in guesses:
        guess = out.layout(*strides)
        if not torch.equal(guess, truth) and torch.equal(written, guess):
            view = "a transposed view" if row_stride == 1 and cols > 1 else "a view"
            promise = (
                f" {row_stride} is not: check a stride on the host before you tell the kernel "
                "it is a multiple of anything."
                if "multiple" in what
                else ""
            )
            return (
                f"the stores landed where `{name}`'s elements would be if {what}, at i * "
                f"{strides[0]} + j * {strides[1]}: `{name}` here is {view} with strides "
                f"({row_stride}, {col_stride}), so element (i, j) is at i * {row_stride} + j * "
                f"{col_stride}.{promise} Store through both of its strides, as the host "
                "passes them."
            )
    return ""


# the advice for reads that all fall before a tensor's first element: no mask of `offs < n`
# would stop them
BEFORE_THE_START = (
    "A read before the first element comes from the pointer arithmetic, not from a missing "
    "mask: something is subtracted from the offsets, or a block starts too low. Print the "
    "offsets of program 0 (content/debugging.md, step 2)."
)


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"


def _distances(nearest: int, farthest: int) -> str:
    """'1 element', or '3 to 24 elements'."""
    return _elements(nearest) if nearest == farthest else f"{nearest} to {farthest} elements"


def _where(offsets: list[int], span: int) -> str:
    before = [o for o in offsets if o < 0]
    after = [o - span for o in offsets if o >= span]
    parts = []
    if before:
        parts.append(
            f"{len(before)} before the first element "
            f"({_distances(-max(before), -min(before))} before it)"
        )
    if after:
        parts.append(
            f"{len(after)} past the end "
            f"({_distances(min(after) + 1, max(after) + 1)} beyond the last one)"
        )
    inside = len(offsets) - len(before) - len(after)
    if inside:
        parts.append(f"{inside} in the gaps between rows")
    return "; ".join(parts)


@dataclass
class Returned:
    """What a call returned, from the runner's record: a tensor is a spec of the judge's
    buffers or of a temporary of the record."""

    type: str
    spec: dict = field(default_factory=dict)

    def shape(self) -> tuple[int, ...]:
        shape = self.spec.get("shape")
        return tuple(shape) if isinstance(shape, list) else ()

    def is_view_of(self, t: torch.Tensor) -> bool:
        return self.spec.get("ref") == buffer_ref(t) and [
            self.spec.get(k) for k in ("shape", "stride", "offset")
        ] == [list(t.shape), list(t.stride()), t.storage_offset()]


@dataclass
class Watched:
    """One call: the runner's record of it, and what the judge saw running that record."""

    returned: Returned
    launches: list[Launch]
    copies: list[dict]  # copy steps: into and from
    computed: list[str]  # torch operations the host code computed with
    reads_outside: dict[str, list[int]]  # the lowest offsets, at most 1000 of each tensor's
    reads_counted: dict[str, int]  # how many there were in all
    writers: torch.Tensor | None  # on the interpreter: which program's store each out element holds
    again: Returned | None = None  # what a second call returned, where the record has one
    kept: int = 0  # tensors the call used but did not make (kept from an earlier call)
    steps: list[dict] = field(default_factory=list)  # the record the executor ran


def _record(reply: dict) -> tuple[list[dict], list[str], Returned]:
    """The steps, host computations and result of a runner's reply, checked for shape (the
    executor refuses what it cannot run)."""
    steps = reply.get("steps") if isinstance(reply.get("steps"), list) else []
    if reply.get("too_long"):
        raise LearnerError(
            "failed",
            "the call asked for too many launches and copies to grade (over 2000): a drill "
            "needs a few launches.",
            Kind.JUDGE_CANNOT_RUN,
        )
    steps = [s for s in steps if isinstance(s, dict)]
    computed = reply.get("computed") if isinstance(reply.get("computed"), list) else []
    return steps, [str(c)[:100] for c in computed][:50], _returned(reply.get("result"))


def _returned(result) -> Returned:
    """What a call returned, from a reply's description of it."""
    result = result if isinstance(result, dict) else {}
    spec = {k: result.get(k) for k in ("ref", "dtype", "shape", "stride", "offset", "device")}
    return Returned(str(result.get("type", "?"))[:100], spec)


def watch(
    case: Case,
    *,
    with_out: bool,
    fetch_into: torch.Tensor | None = None,
    returns_wrong: Callable[[Returned], str | None] = lambda returned: None,
    again: Guarded | None = None,
) -> Watched:
    """Call the case's function (with `out=` if with_out) and run what it asked for on the
    case's buffers; with fetch_into, copy the tensor it returned there, unless returns_wrong
    finds fault with it first (the test fails with that message). With `again`, a second call
    on the same inputs, into that output, follows the first in the same record."""
    kwargs = dict(case.kwargs)
    guarded = {name: g.tensor for name, g in case.inputs.items()}
    if with_out:
        kwargs["out"] = case.out.tensor
        guarded["out"] = case.out.tensor
    again_kwargs = None
    if again is not None:
        again_kwargs = kwargs | {"out": again.tensor}
        guarded["out again"] = again.tensor
    args = [g.tensor for g in case.inputs.values()]
    config = case.config
    writers = None
    if with_out and not runtime.current().is_gpu:
        writers = shared_empty(case.out.buffer.numel(), torch.int32, device())
    while True:
        reply = case.fn.call(
            args, kwargs, config=config, benchmark=case.benchmarked, again=again_kwargs
        )
        if reply.get("pruned"):
            raise ConfigPruned(str(reply["pruned"]))
        steps, computed, returned = _record(reply)
        must_compile(case, steps)
        again_returned = _returned(reply.get("again_result")) if again is not None else None
        problem = returns_wrong(returned)
        if problem:
            fail(Kind.WRONG_RETURN, problem, case.name)
        fetch = None
        if fetch_into is not None and returned.type == "Tensor":
            fetch = {"into": fetch_into, "from": returned.spec}
        if writers is not None:
            writers.fill_(-1)
        past_end = inputs_ending_at_unmapped_memory(case)
        try:
            reply = case.fn.code.replay(
                steps, guarded, fetch, {"out": writers} if writers is not None else None, past_end
            )
            break
        except LearnerError as e:
            if e.kind == "cuda_fault" and past_end:
                read_past = case.fn.code.read_past_the_end(steps, guarded, past_end)
                if read_past:
                    fail(Kind.READ_OUTSIDE, past_the_end(case, read_past), case.name)
            if e.kind == "cuda_fault" and case.fault_advice:
                fail(
                    Kind.CUDA_FAULT,
                    "the GPU reported an illegal memory access: the kernel read or wrote "
                    "outside every tensor in a case whose offsets pass 2^31 elements. "
                    f"{case.fault_advice}",
                    case.name,
                )
            # the autotuner on a GPU skips a config that cannot load: so does the judge, by
            # asking the runner for the same call with the next config of the kernel that
            # could not load
            launched = [s.get("kernel") for s in steps if s.get("step") == "launch"]
            kernel = str(launched[-1]) if launched else ""
            config = {"kernel": kernel, "index": config["index"] + 1 if config else 1}
            if (
                e.kind != "out_of_resources"
                or case.config is not None
                or config["index"] >= len(case.fn.code.configs(kernel, case.fn.__name__))
            ):
                # a kernel that crashed or did not compile: a mask written as a chain is a
                # likely cause of either
                raise LearnerError(
                    e.kind, f"{in_file_lines(case, str(e))}{read_in_kernels(case)}", e.shows, e.line
                ) from None
            case.out.reset()
    reads = reply.get("reads_outside") if isinstance(reply.get("reads_outside"), dict) else {}
    counted = reply.get("reads_outside_count")
    counted = counted if isinstance(counted, dict) else {}
    return Watched(
        returned,
        [Launch.from_step(s) for s in steps if s.get("step") == "launch"],
        [s for s in steps if s.get("step") == "copy"],
        computed,
        {
            name: [o for o in offsets if isinstance(o, int)]
            for name, offsets in reads.items()
            if name in guarded and isinstance(offsets, list)
        },
        {name: n for name, n in counted.items() if name in guarded and isinstance(n, int)},
        case.out.like_tensor(writers) if writers is not None else None,
        again_returned,
        sum(s.get("step") == "alloc" and s.get("kept") is True for s in steps),
        steps,
    )


class ConfigPruned(Exception):
    """A case's config is one the kernel's own pruning (prune_configs_by) removes for its
    call: autotune never runs it there, and neither does the judge."""


def must_compile(case: Case, steps: list[dict]) -> None:
    """On the interpreter, a record's launches count only where a GPU would run them: every
    kernel they launch must compile for one (sm_90), from the text the executor runs. The
    interpreter runs a kernel body as Python, which can do what no Triton program can (numpy
    on its blocks, anything at all); a GPU compiles it, or refuses it. On a GPU, launching
    compiles for real."""
    if runtime.current().is_gpu:
        return
    launches = [Launch.from_step(s) for s in steps if s.get("step") == "launch"]
    errors = gpu_compile.failures(case.fn.code, launches)
    if errors:
        message = f"{gpu_compile.NOT_COMPILED}\n{in_file_lines(case, errors[0])}"
        fail(Kind.NOT_COMPILED, message, case.name)


def inputs_ending_at_unmapped_memory(case: Case) -> list[str]:
    """The inputs a GPU replay of the case places at the end of mapped memory: every one, or
    the one a kernel of this file was already seen to read past (each fault costs a fresh
    executor)."""
    if not (case.past_end and runtime.current().is_gpu):
        return []
    known = case.fn.code.known_past_end
    return [known] if known in case.inputs else list(case.inputs)


def past_the_end(case: Case, name: str) -> str:
    """The message for a GPU fault that a read past the end of input `name` caused."""
    advice = case.hints.outside_read or "Mask every load as the store is masked."
    return (
        f"read outside `{name}`, past its end: the judge placed `{name}` so that it ends where the "
        "GPU's mapped memory ends, and a load of an element after its last one faulted (an "
        "illegal memory access; without that placement the read goes unseen, and on another "
        f"allocation it can crash). {advice}"
    )


def copies_touching(watched: Watched, tensors: list[torch.Tensor]) -> int:
    """How many copies of the record read or wrote one of these tensors (the operands, out)."""
    refs = {buffer_ref(t) for t in tensors}
    return sum(
        _ref_of(c.get("into")) in refs or _ref_of(c.get("from")) in refs for c in watched.copies
    )


ATOMICS_ADVICE = (
    "Your kernel adds into its result with atomics, so what it adds to must start at zero on "
    "every call: allocate it with torch.zeros, or zero it in each config's pre_hook, which runs "
    "before every launch. autotune's reset_to_zero is not enough: it zeroes only around the "
    "timing runs of a shape's first call, and a later call of that shape adds into whatever "
    "the memory held."
)
BENCHMARK_ATOMICS_ADVICE = (
    "Your kernel adds into its result with atomics, and on the first call of a shape autotune "
    "runs each config on the call's own tensors to time it: each run adds into the output "
    "again. Zero what the kernel adds into before every run, not once on the host: "
    "reset_to_zero=[...] in @triton.autotune, or a pre_hook in each split config."
)


def adds_with_atomics(case: Case) -> bool:
    """Whether the kernels the judge ran for this file add with atomics (tl.atomic_add, ...)."""
    source = case.fn.code.source
    return source is not None and "atomic_" in source.kernel_module()[0]


def atomics_or_nan_advice(case: Case, out: torch.Tensor) -> str:
    """The advice for wrong values that atomics or a NaN explain, or an empty string."""
    if case.benchmarked and adds_with_atomics(case):
        return BENCHMARK_ATOMICS_ADVICE
    if not bool(torch.isnan(out).any()):
        return ""
    if adds_with_atomics(case):
        # on a GPU an atomic add into the judge's fill gives a NaN it cannot tell apart
        return f"{ATOMICS_ADVICE} If it does, then: {case.hints.nan}"
    return case.hints.nan


def why_not_the_kernel(watched: Watched, hints: Hints) -> tuple[Kind, str] | None:
    """When the result is wrong: the reason the record gives, if it shows one (no launch at
    all, or torch computing on the host), else None."""
    ops = watched.computed
    if not watched.launches:
        torch_note = f" It ran torch operations instead: {', '.join(ops)}." if ops else ""
        return Kind.NO_LAUNCH, f"no Triton kernel was launched.{torch_note} {hints.no_launch}"
    if ops:
        return Kind.HOST_COMPUTED, (
            f"the result came from host code, not from the kernel: your function computed "
            f"with torch ({', '.join(ops)}) outside any launch. The judge runs your kernels "
            f"on its own inputs, and only what they write is graded. {hints.no_launch}"
        )
    return None


def read_in_source(case: Case) -> str:
    """What the judge's reading of the host code found that computes outside a kernel (numpy,
    torch arithmetic, ...): said beside a wrong result, never a reason on its own."""
    source = case.fn.code.source
    found = [f for f in source.escapes() if f.computes][:3] if source else []
    return "\nRead in your host code: " + "; ".join(map(str, found)) if found else ""


# triton 3.9 compiles `lo <= x < hi` (and its interpreter runs it) as (lo <= x) & (x < hi)
CHAINS_COMPILE = runtime.major_minor(triton.__version__) >= (3, 9)


def in_file_lines(case: Case, message: str) -> str:
    """A compile error's positions as lines of the learner's file."""
    source = case.fn.code.source
    return source.in_file_lines(message) if source else message


def read_in_kernels(case: Case) -> str:
    """Comparisons in the kernels that do not compute what they look like (`rows < M & cols <
    N`): said beside any failure, whatever its symptom, since a wrong mask shows as many."""
    source = case.fn.code.source
    found = source.chained_comparisons(CHAINS_COMPILE) if source else []
    return "\nRead in your kernels: " + "; ".join(map(str, found[:3])) if found else ""


def strides_sidestepped(case: Case, watched: Watched) -> tuple[Kind, str] | None:
    """A check about strides: a copy of an operand or of the result sidesteps them."""
    tensors = [g.tensor for g in case.inputs.values()] + [case.out.tensor]
    if not case.through_strides or not copies_touching(watched, tensors):
        return None
    return Kind.HOST_COMPUTED, (
        "torch copied a tensor outside the kernel: the values are right, but this check is "
        "about the kernel reading its operands and writing its result where they lie, through "
        "their strides; pass the strides to the kernel instead of making a contiguous copy."
    )


def check_allocates(case: Case) -> None:
    """Call the learner's function without out=: it must launch its kernel and return a new
    tensor with the expected shape, dtype, device and values, leaving the inputs alone."""
    call = f"{case.fn.__name__}({', '.join(case.inputs)}) without out="
    before = {name: g.snapshot() for name, g in case.inputs.items()}
    want = case.expected
    result = shared_empty(want.numel(), want.dtype, want.device.type).view(want.shape)
    _bits(result).fill_(_canary_bits(want.dtype, output=True))

    def failed(kind: Kind, message: str) -> typing.NoReturn:
        fail(kind, f"{call}: {message}{read_in_kernels(case)}", case.name)

    def returns_wrong(got: Returned) -> str | None:
        """Read before anything runs: the judge fetches only a result of the expected shape."""
        if got.type != "Tensor":
            return f"{call}: returned {got.type}, not a tensor."
        expected = (tuple(want.shape), _dtype_name(want.dtype))
        if (got.shape(), got.spec.get("dtype")) != expected:
            return (
                f"{call}: returned {got.shape()} {got.spec.get('dtype')}; expected a new "
                f"{expected[0]} {expected[1]} tensor on {want.device.type}."
            )
        if got.spec.get("device") != want.device.type:
            return (
                f"{call}: returned a tensor on {str(got.spec.get('device'))[:20]}, where its "
                f"inputs are on "
                f"{want.device.type}: allocate it on theirs, torch.empty(..., device=x.device)."
            )
        if any(got.spec.get("ref") == buffer_ref(g.tensor) for g in case.inputs.values()):
            return f"{call}: returned one of its inputs: allocate a new output tensor."
        return None

    watched = watch(case, with_out=False, fetch_into=result, returns_wrong=returns_wrong)
    for name, guarded in case.inputs.items():
        if guarded.changed_since(before[name]):
            failed(
                Kind.CHANGED_INPUT, f"changed its input {name}: write into a new tensor instead."
            )
    report = compare(result, want, case.tol)
    if report:
        launch = watched.launches[-1] if watched.launches else None
        why = why_not_the_kernel(watched, case.hints)
        if why:
            failed(why[0], why[1] + read_in_source(case))
        advice = case.diagnose(launch, result) or _values_advice(result, want, case.hints)
        kept = KEPT_ADVICE if watched.kept else ""
        failed(Kind.WRONG_VALUES, f"returned wrong values.\n{report}\n{advice}{kept}")


def matches(got: torch.Tensor, candidate: torch.Tensor, tol: Tolerance) -> bool:
    """Whether `got` is what a mistake computes: NaN in the same places (a mistake may leave
    some: 0 / 0, a read of the padding), and close elsewhere."""
    candidate = candidate.to(got.dtype).to(got.device)
    number = ~torch.isnan(candidate)
    same_nan = torch.equal(torch.isnan(got), ~number)
    return same_nan and compare(got[number], candidate[number], tol) is None


def matches_reads(got: torch.Tensor, candidate: torch.Tensor, tol: Tolerance) -> bool:
    """matches(), for a mistake guessed as reads from other places: a candidate of only NaN,
    every guessed read having reached the padding somewhere, proves nothing, since atomics
    into a NaN canary leave only NaN too."""
    return bool((~torch.isnan(candidate)).any()) and matches(got, candidate, tol)


def stepped_by_elements(g: Guarded, step: int, k_dim: int) -> torch.Tensor:
    """The operand a matmul reads when its pointers move `step` elements at each step of K
    instead of `step` times the stride along K: k_dim is 1 for a [M, K], 0 for b [K, N]."""
    t = g.tensor
    k = torch.arange(t.shape[k_dim], device=t.device)
    other = torch.arange(t.shape[1 - k_dim], device=t.device)
    along_k, across = t.stride()[k_dim], t.stride()[1 - k_dim]
    offsets = (k % step * along_k + k // step * step)[None, :] + (other * across)[:, None]
    return g.read_at(offsets if k_dim == 1 else offsets.t())


def read_with_row_stride(g: Guarded, row_stride: int) -> torch.Tensor:
    """The 2-D operand a kernel reads when it takes its rows to lie `row_stride` apart."""
    t = g.tensor
    rows = torch.arange(t.shape[0], device=t.device)[:, None]
    cols = torch.arange(t.shape[1], device=t.device)[None, :]
    return g.read_at(rows * row_stride + cols * t.stride(1))


def k_loop_mistake(
    a: torch.Tensor,
    b: torch.Tensor,
    tol: Tolerance,
    block_k: str,
    operands: tuple[Guarded, Guarded] | None = None,
):
    """A matmul case's diagnose(): it recognises K-loop mistakes by their results. acc set to
    zeros inside the loop leaves only the last block of K; a loop that rounds K down leaves out
    the last, partial block; a row stride taken from another size, or a pointer step without
    the stride along K, reads the wrong elements of `operands` (the guarded a and b); split-K
    programs that store, not add, leave one split's sum each. `block_k` names the launch's K
    block constexpr (BLOCK_K, as split-K kernels in the style of triton.ops.matmul name it, is
    tried next)."""
    a, b = a.double(), b.double()
    K = a.shape[1]

    def diagnose(launch: Launch | None, out: torch.Tensor) -> str:
        wrong_rows = row_stride_mistake(out)
        if wrong_rows:
            return wrong_rows
        args = launch.args if launch else {}
        name = next((n for n in (block_k, "BLOCK_K") if isinstance(args.get(n), int)), block_k)
        step = args.get(name)
        if not isinstance(step, int) or not 0 < step < K:
            return ""
        # first: where one split's store won everywhere, c is also the first or the last
        # blocks of K alone, which the K loop's own mistakes below leave too
        splits = args.get("SPLIT_K")
        if isinstance(splits, int) and splits > 1 and one_split_each(out, splits, step):
            return (
                f"each element of c holds the sum over one split of K only: the {splits} "
                "programs that share a tile (SPLIT_K) each stored their partial sum, and the "
                "last store won. Add the partial sums instead, with tl.atomic_add into a c "
                "that starts at zero."
            )
        last = (K - 1) // step * step  # where the last block of K starts
        if compare(out, (a[:, last:] @ b[last:, :]).half(), tol) is None:
            return (
                f"c holds only the last block of K (k from {last} on): acc is set to zeros "
                "inside the K loop. Set it to zeros once, before the loop."
            )
        whole = K // step * step
        if whole < K and compare(out, (a[:, :whole] @ b[:whole, :]).half(), tol) is None:
            return (
                f"c leaves out the last, partial block of K (k from {whole} on): the K loop "
                f"must run tl.cdiv(K, {name}) times, not K // {name}."
            )
        for size, extent in (("M", a.shape[0]), ("N", b.shape[1])):
            end = -(-extent // step) * step  # where a loop over that size's blocks stops
            if end < K and compare(out, (a[:, :end] @ b[:end, :]).half(), tol) is None:
                return (
                    f"c holds the sum over k < {end} only: the K loop ran tl.cdiv({size}, "
                    f"{name}) times ({size} = {extent}). It must run over K: tl.cdiv(K, {name})."
                )
        # a's K is its columns, b's its rows
        for name_of, g, k_dim in zip("ab", operands or (), (1, 0), strict=False):
            if g.tensor.stride()[k_dim] == 1:
                continue  # a step of elements is a step along K
            eff = stepped_by_elements(g, step, k_dim)
            if matches_reads(out, (eff @ b if name_of == "a" else a @ eff).half(), tol):
                stride = "stride_ak" if name_of == "a" else "stride_bk"
                return (
                    f"the pointers into {name_of} moved {step} elements at each step of K, not "
                    f"{step} steps of {name_of}'s stride along K ({g.tensor.stride()[k_dim]} "
                    f"here): {name_of}_ptrs += {name} * {stride}."
                )
        return ""

    def row_stride_mistake(out: torch.Tensor) -> str:
        """Which operand's rows were read at another distance apart (M, N or K, or its width,
        where it lies in a wider tensor), if one was."""
        M, N = a.shape[0], b.shape[1]
        for name_of, g in zip("ab", operands or (), strict=False):
            t = g.tensor
            true = t.stride(0)
            if t.stride(1) != 1:
                continue  # a transposed view: its rows are not where a row length matters
            for guess in sorted({M, N, K, t.shape[1]} - {true}):
                eff = read_with_row_stride(g, guess)
                if matches_reads(out, (eff @ b if name_of == "a" else a @ eff).half(), tol):
                    wider = ", inside a wider tensor" if true != t.shape[1] else ""
                    return (
                        f"the rows of {name_of} were read {guess} elements apart, but they lie "
                        f"{true} apart ({name_of} is {t.shape[0]} x {t.shape[1]}{wider}): row r "
                        f"of {name_of} starts at r * {true}, its row stride, which square "
                        "matrices cannot tell from the others."
                    )
        return ""

    def one_split_each(out: torch.Tensor, splits: int, step: int) -> bool:
        """Whether every element equals the partial sum of one of the splits, which take every
        splits-th block of K in turn (as triton.ops.matmul's did) or a contiguous share."""
        blocks = torch.arange(K, device=a.device) // step
        share = -(-K // splits)
        for of_split in (blocks % splits, torch.arange(K, device=a.device) // share):
            matched = torch.zeros(out.shape, dtype=torch.bool, device=out.device)
            for z in range(splits):
                ks = of_split == z
                matched |= ~wrong_elements(out, (a[:, ks] @ b[ks, :]).half(), tol)
            if bool(matched.all()):
                return True
        return False

    return diagnose


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def recorded_launches(case: Case) -> list[Launch]:
    """The launches a call of the case asks for, in order, as the runner's record has them
    (with the config autotune keeps, the first): nothing is run or compiled."""
    args = [g.tensor for g in case.inputs.values()]
    steps, _, _ = _record(case.fn.call(args, dict(case.kwargs) | {"out": case.out.tensor}))
    return [Launch.from_step(s) for s in steps if s.get("step") == "launch"]


def kernels_launched(case: Case) -> list[str]:
    """The names of the kernels a call of the case launches, in order."""
    return [launch.kernel for launch in recorded_launches(case)]


def run_case(case: Case) -> Watched:
    """Call the learner's function once and fail with a precise message if anything is off;
    what the judge saw of the call."""
    before = {name: g.snapshot() for name, g in case.inputs.items()}
    watched = watch(case, with_out=True)
    found = failure(case, watched, before)
    if not found and case.stores is not None and watched.launches:
        writers = (
            watched.writers if watched.writers is not None else writers_by_prefix(case, watched)
        )
        order = case.stores(watched.launches[-1], writers) if writers is not None else ""
        found = (Kind.TILE_ORDER, order) if order else None
    if found:
        fail(*found, case.name)
    return watched


def replayed(case: Case, steps: list[dict]) -> bool:
    """Run a record again on the case's buffers, as it stands (for what the run leaves in
    `out`); False where it fails."""
    guarded = {name: g.tensor for name, g in case.inputs.items()} | {"out": case.out.tensor}
    try:
        case.fn.code.replay(steps, guarded)
    except LearnerError:
        return False
    return True


# the most programs writers_by_prefix cuts a grid to, one run each
MOST_PREFIXES = 256


def writers_by_prefix(case: Case, watched: Watched) -> torch.Tensor | None:
    """On a GPU, which program stored each element of the output, shaped like it: the record
    run again with axis 0 of its last launch cut to its first k programs, k = 1, 2, ...; what a
    cut writes first is program k - 1's. A program's work cannot depend on how many run unless
    the file reads the grid's size (tl.num_programs) or waits on other programs (which takes
    atomics): for such files, or where a cut run fails, None. A persistent kernel's programs
    keep their tiles, their stride over the tiles being a number the launch passes. The output
    holds the last cut's values afterwards."""
    launch = watched.launches[-1]
    last = max(i for i, s in enumerate(watched.steps) if s.get("step") == "launch")
    programs = launch.grid[0] if launch.grid else 0
    text = case.fn.code.source.text
    if not 0 < programs <= MOST_PREFIXES or "num_programs" in text or "atomic_" in text:
        return None
    writers = torch.full(case.out.buffer.shape, -1, dtype=torch.int32)
    for k in range(1, programs + 1):
        steps = list(watched.steps)
        steps[last] = steps[last] | {"grid": [k, *launch.grid[1:]]}
        case.out.reset()
        if not replayed(case, steps):
            return None
        first = case.out.written().cpu() & (writers < 0)
        writers[first] = k - 1
    return case.out.like_tensor(writers)


def run_twice(case: Case) -> None:
    """Call the learner's function twice in a row on the same inputs, the second time into a
    fresh output laid out like the first: both results must be right. What the first call
    leaves behind (a workspace allocated once and zeroed only then, a cached tensor) reaches
    the second, as it would in a program that calls the function in a loop."""
    before = {name: g.snapshot() for name, g in case.inputs.items()}
    second = case.out.like()
    watched = watch(case, with_out=True, again=second)
    found = failure(case, watched, before)
    if found:
        fail(*found, f"{case.name}, the first of two calls")
    found = failure(
        dataclasses.replace(case, out=second),
        dataclasses.replace(watched, returned=watched.again, writers=None),
        before,
    )
    if found:
        fail(
            Kind.SECOND_CALL,
            "the first of two calls in a row was right, the second (the same inputs, a fresh "
            f"`out`) was not: {found[1]}\n{SECOND_CALL_ADVICE}",
            case.name,
        )


KEPT_ADVICE = (
    "\nThe call used a tensor it did not make (a tensor kept between calls, or one made "
    "outside torch): the judge cannot know what it held, and starts it as NaN, like new "
    "memory. Zero or rewrite such a tensor in every call, before a kernel reads it."
)
SECOND_CALL_ADVICE = (
    "Something the first call left behind changed the second: a tensor kept between calls (a "
    "workspace allocated once, a cached output) must be zeroed or rewritten in every call, "
    "before the kernel uses it."
)


# 32 warps of 32 threads: 1024, the most threads one program (a CUDA block) can have
MAX_WARPS = 32


def warps_refused(watched: Watched) -> tuple[Kind, str] | None:
    """A launch whose num_warps a GPU refuses (triton asserts a power of two; more than 32
    cannot launch), which the interpreter ignores."""
    for launch in watched.launches:
        warps = launch.args.get("num_warps")
        if isinstance(warps, int) and not (0 < warps <= MAX_WARPS and warps & (warps - 1) == 0):
            return Kind.GPU_REFUSES, (
                f"a launch of {launch.kernel} asks for num_warps={warps}, which a GPU refuses: "
                f"it takes a power of two from 1 to {MAX_WARPS} (32 threads each, 1024 at most "
                "in one program). The interpreter ignores num_warps, so only the grader sees "
                "it here: choose it from the block size, and cap it (4, 8 or 16 warps)."
            )
    return None


def failure(case: Case, watched: Watched, before: dict) -> tuple[Kind, str] | None:
    """What kind of mistake the call `watched` made and the words that say it, or None where
    it did what the case asks. Every verdict comes from the judge's buffers; the record only
    says why."""
    refused = warps_refused(watched)
    if refused:
        return refused
    wrong = wrong_buffers(case, watched, before)
    if wrong:
        output_wrong, kind, message = wrong
        if output_wrong:
            kind, message = why_not_the_kernel(watched, case.hints) or (kind, message)
            message += read_in_source(case) + (KEPT_ADVICE if watched.kept else "")
        return kind, message + read_in_kernels(case)
    if not watched.returned.is_view_of(case.out.tensor):
        return (
            Kind.WRONG_RETURN,
            "when `out` is given, the function must write into it and return it.",
        )
    return strides_sidestepped(case, watched) or config_not_used(case, watched)


def in_row_chunk_tails(g: Guarded, offsets: list[int]) -> bool:
    """Whether every offset lies past the end of one of the tensor's rows, before the next
    16-byte boundary: where the last 16-byte chunk of a row that is not a whole number of them
    reaches (rows start on such a boundary wherever a tensor descriptor may describe them)."""
    t = g.tensor
    if t.stride(-1) != 1:
        return False
    width, size = t.shape[-1], t.element_size()
    if width * size % 16 == 0:
        return False
    chunk_end = -(-width * size // 16) * 16 // size  # from the row's start, in elements
    rows, row_stride = (t.shape[0], t.stride(0)) if t.dim() == 2 else (1, chunk_end)
    for offset in offsets:
        row, column = divmod(offset, row_stride)
        if not (0 <= row < rows and width <= column < chunk_end):
            return False
    return True


def descriptor_store_chunks(case: Case, launches: list, outside: list[int], on_gpu: bool):
    """Why a kernel that stores through a tensor descriptor wrote just past `out`'s rows, on
    a GPU: TMA moves whole 16-byte chunks (triton issue #11583, documented in PR #11893), so
    a store clipped at a row's end still writes the rest of its last chunk. None otherwise."""
    source = getattr(case.fn.code, "source", None)
    text = source.text if source is not None else ""
    uses_descriptors = "tensor_descriptor" in text or "TensorDescriptor" in text
    in_args = any(
        isinstance(a, dict) and "descriptor" in a
        for launch in launches
        for a in launch.args.values()
    )
    if not (on_gpu and (uses_descriptors or in_args) and in_row_chunk_tails(case.out, outside)):
        return None
    t = case.out.tensor
    row_bytes = t.shape[-1] * t.element_size()
    return (
        "A tensor descriptor's store on an NVIDIA GPU (TMA) writes whole 16-byte chunks: a row "
        f"of `out` here is {row_bytes} bytes, not a multiple of 16, so the store also wrote the "
        "rest of the row's last chunk, past its end (triton issue #11583; the CPU interpreter "
        "does not). Where a row's size in bytes is not a multiple of 16, store through "
        "pointers with a mask, tl.store(ptrs, values, mask=...), not the descriptor."
    )


def config_not_used(case: Case, watched: Watched) -> tuple[Kind, str] | None:
    """A case that forces one autotune config: its launch must run with that config's values
    (the runner could otherwise report a good config's launch for a bad one)."""
    wanted = case.launched_with
    if not wanted or any(
        all(launch.args.get(k) == v for k, v in wanted.items()) for launch in watched.launches
    ):
        return None
    return Kind.NO_LAUNCH, (
        f"the call did not launch the config it was asked to run ({wanted}): the judge reads "
        "the configs in your source and checks each one."
    )


def wrong_buffers(case: Case, watched: Watched, before: dict) -> tuple[bool, Kind, str] | None:
    """What the judge's buffers show is wrong, or None: (whether the output is wrong or
    unwritten, the kind of mistake, the message)."""
    out = case.out.tensor
    launch = watched.launches[-1] if watched.launches else None
    misplaced = misplaced_stores(case.out)
    if misplaced:
        return True, Kind.STRIDES, misplaced
    # a stray store lands in the output's padding first, and further on in other buffers
    outside = case.out.written_outside()
    if outside:
        why = (
            descriptor_store_chunks(case, watched.launches, outside, runtime.current().is_gpu)
            or case.why_outside(launch, "out", outside)
            or case.hints.outside
        )
        return (
            False,
            Kind.WROTE_OUTSIDE,
            (
                f"wrote {_elements(len(outside))} outside the output: "
                f"{_where(outside, case.out.span)}. {why}"
            ),
        )
    for name, guarded in case.inputs.items():
        changed = guarded.changed_since(before[name])
        if changed:
            return (
                False,
                Kind.CHANGED_INPUT,
                (
                    f"the kernel changed {changed} elements of the input `{name}` (or the "
                    f"padding around it); inputs must stay read-only. {case.hints.outside}"
                ).rstrip(),
            )
    for name, offsets in watched.reads_outside.items():
        if offsets:
            span = case.inputs[name].span if name in case.inputs else case.out.span
            # a matmul's K-tail read reaches the sums; an add's or a softmax's stray lane is
            # dropped by the store's mask, and only a GPU's fault would show it
            wrong = compare(out, case.expected, case.tol) is not None
            effect = (
                "The values read there reached the result, which is wrong."
                if wrong
                else "Here the values were thrown away, but on a GPU such a read can fault."
            )
            count = max(watched.reads_counted.get(name, 0), len(offsets))
            shown = "" if count == len(offsets) else f"; the {len(offsets)} nearest its start"
            advice = (
                case.why_outside(launch, name, offsets)
                or (max(offsets) < 0 and BEFORE_THE_START)
                or (wrong and case.diagnose(launch, out))
                or case.hints.outside_read
                or "Mask every load as the store is masked."
            )
            kind = Kind.READ_BEFORE_START if max(offsets) < 0 else Kind.READ_OUTSIDE
            return (
                False,
                kind,
                (
                    f"read {_elements(count)} outside `{name}`{shown}: "
                    f"{_where(sorted(offsets), span)}. {effect} {advice}"
                ).rstrip(),
            )
    owner = lambda idx: case.owner(launch, idx)
    unwritten = case.out.never_written()
    if bool(unwritten.any()):
        if (
            bool(unwritten.all())
            and watched.launches
            and not any(launch.touches(out) for launch in watched.launches)
            and not copies_touching(watched, [out])
        ):
            return (
                True,
                Kind.NO_LAUNCH,
                (
                    "no kernel launch was given the output tensor `out`: the kernel must write "
                    "the result into `out`."
                ),
            )
        flat = torch.nonzero(unwritten.flatten()).flatten()
        first = _index(int(flat[0]), tuple(out.shape))
        who = owner(first)
        where = f"(first at index {_fmt_index(first)}{', ' + who if who else ''})"
        if adds_with_atomics(case):
            # an atomic add into the judge's fill (NaN) keeps it NaN
            return (
                True,
                Kind.NOT_ZEROED,
                (
                    f"{len(flat)} of {out.numel()} output elements still hold NaN, which the "
                    f"judge fills new memory with {where}. {ATOMICS_ADVICE} If it does, then: "
                    f"{case.hints.unwritten}"
                ),
            )
        reads = reads_its_output(case, watched)
        seen = (
            f"{len(flat)} of {out.numel()} output elements hold the judge's fill of `out` "
            f"{where} after the call."
            if reads
            else f"{len(flat)} of {out.numel()} output elements were never written {where}."
        )
        tiles = map_of_tiles(case, watched, unwritten)
        advice = reads or case.why_unwritten(launch, unwritten) or case.hints.unwritten
        kind = Kind.RACE if reads else Kind.NEVER_WRITTEN
        return True, kind, seen + (f"{tiles}\n{advice}" if tiles else f" {advice}")
    report = compare(out, case.expected, case.tol, owner)
    if report:
        # a recognised mistake is named first: some leave NaN where they divide 0 by 0
        kind, advice = Kind.WRONG_VALUES, case.diagnose(launch, out)
        if not advice:
            advice = reads_its_output(case, watched)
            kind = Kind.RACE if advice else kind
        if not advice:
            advice = atomics_or_nan_advice(case, out)
            kind = Kind.NOT_ZEROED if advice and adds_with_atomics(case) else kind
        advice = advice or _values_advice(out, case.expected, case.hints)
        tiles = map_of_tiles(case, watched, unwritten)
        return True, kind, f"wrong values.\n{report}{tiles}\n{advice}".rstrip()
    return None


RUN_TO_RUN = (
    "The result changes from one run to the next on the same inputs (the judge ran the call's "
    "record again): programs race, two storing into the same element, or one reading a block "
    "another stores. A GPU runs programs at the same time, in no order, and the CPU "
    "interpreter in an order drawn at each launch: each element must be stored by one "
    "program, from what the inputs hold."
)
READS_ITS_OUTPUT = (
    "The result depends on what `out` held before the call: run again with `out` zeroed "
    "instead of the judge's fill, it came out different. A kernel must not read `out` before "
    "it writes it; where it reads a block another program stores, programs race, since a GPU "
    "runs them at the same time, in no order (the CPU interpreter, in an order drawn at each "
    "launch)."
)


def reads_its_output(case: Case, watched: Watched) -> str:
    """Why the result is not a function of the inputs, where the record run again shows it:
    RUN_TO_RUN where a second run on the same `out` leaves other bits, READS_ITS_OUTPUT where
    one on an `out` of zeros does (an element written now holds other bits, or one that held
    the judge's fill holds something other than zero). "" where neither does, or where the
    kernel adds into `out` with atomics (their order changes the sums' last bits). `out` is
    left as the first run left it."""
    if not watched.steps or adds_with_atomics(case):
        return ""
    out, kept = case.out, case.out.buffer.clone()
    first, unwritten = _bits(out.tensor).clone(), out.never_written()

    def run_again(zeroed: bool) -> torch.Tensor | None:
        out.reset()
        if zeroed:
            _bits(out.tensor).zero_()
        return _bits(out.tensor).clone() if replayed(case, watched.steps) else None

    try:
        same = run_again(zeroed=False)
        if same is None or not same.equal(first):
            return RUN_TO_RUN if same is not None else ""
        again = run_again(zeroed=True)
    finally:
        out.buffer.copy_(kept)
    if again is None:
        return ""
    differs = torch.where(unwritten, again != 0, again != first)
    return READS_ITS_OUTPUT if bool(differs.any()) else ""
