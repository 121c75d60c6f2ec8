"""Comparing values: a closeness check that reports how many elements differ, where and by how
much, and whether a result is what a given mistake computes."""

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import torch

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
    torch.float64: Tolerance(0, 0),  # one rounding of an exact sum: the same on every machine
}

DTYPE_NAMES = {
    torch.float32: "fp32",
    torch.float16: "fp16",
    torch.bfloat16: "bf16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.float64: "fp64",
}


def index_of(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for size in reversed(shape):
        out.append(flat % size)
        flat //= size
    return tuple(reversed(out))


def format_index(idx: tuple[int, ...]) -> str:
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


def percent(share: float) -> str:
    """0.1% and up to one decimal; below that, two significant digits, never 0.0%."""
    return f"{100 * share:.1f}%" if share >= 1e-3 else f"{100 * share:.2g}%"


NEAR = 0.01  # every error under 1% of the largest value: rounding, not a wrong element


def near_miss(got: torch.Tensor, expected: torch.Tensor) -> float | None:
    """The largest error as a share of the largest expected value, when every element is
    finite and that share is under NEAR; else None. A wrong address, a missing block of K or a
    mask gone wrong is off by about the size of the values themselves."""
    got, expected = got.double(), expected.double().to(got.device)
    scale = float(expected.abs().max()) if expected.numel() else 0.0
    if not (scale > 0 and bool(torch.isfinite(got).all())):
        return None
    share = float((got - expected).abs().max()) / scale
    return share if share < NEAR else None


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
    every chunk, which a 2^31-element output made cost half a second). An output that holds
    exactly the expected values (of the same dtype, without NaN, which equals nothing) is
    within any tolerance: one pass over both finds that, where the float64 comparison of a
    2^31-element output took 0.3 s on an H100."""
    wrong = torch.zeros((), dtype=torch.bool, device=got.device)
    if got.dtype == expected.dtype and torch.equal(got, expected.to(got.device)):
        return wrong
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
    share = f"{tally.bad} of {got.numel()} elements ({percent(tally.bad / got.numel())}) are wrong"
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
            f"{format_index(index_of(tally.worst_abs[1], shape))}; max rel error "
            f"{tally.worst_rel:.4g}"
        )
    lines.append("first wrong elements:")
    for flat in tally.first:
        idx = index_of(flat, shape)
        who = owner(idx)
        where = f"  ({who})" if who else ""
        lines.append(
            f"  [{format_index(idx)}] got {_fmt_value(got[idx])}, "
            f"expected {_fmt_value(expected[idx])}{where}"
        )
    return "\n".join(lines)


def matches(got: torch.Tensor, candidate: torch.Tensor, tol: Tolerance) -> bool:
    """Whether `got` is what a mistake computes: NaN in the same places (a mistake may leave
    some: 0 / 0, a read of the padding), the same infinities (an overflow), and close
    elsewhere. An infinity is matched only by itself: a relative tolerance of it would allow
    any finite number."""
    candidate = candidate.to(got.dtype).to(got.device)
    number = ~torch.isnan(candidate)
    same_nan = torch.equal(torch.isnan(got), ~number)
    infinite = torch.isinf(candidate)
    same_inf = torch.equal(got[infinite], candidate[infinite])
    finite = number & ~infinite
    if not (same_nan and same_inf):
        return False
    # the others compared as equal numbers, in place: a tolerance's sizes have got's shape
    return compare(torch.where(finite, got, 0), torch.where(finite, candidate, 0), tol) is None


def far_nearer(out: torch.Tensor, candidate: torch.Tensor, right: torch.Tensor) -> bool:
    """Whether out lies at least four times nearer to candidate than to right, by the largest
    difference over the elements finite in all three. A mistake whose effect is near the
    tolerance can leave its model inside it while the output, the model plus the kernel's own
    rounding, falls outside (T6's one key too many: the output 25 times nearer to its model)."""
    out, candidate, right = (t.double().cpu() for t in (out, candidate, right))
    finite = out.isfinite() & candidate.isfinite() & right.isfinite()
    if not bool(finite.any()):
        return False
    to_candidate = (out - candidate)[finite].abs().max()
    return bool(4 * to_candidate < (out - right)[finite].abs().max())


def matches_reads(
    got: torch.Tensor,
    candidate: torch.Tensor,
    tol: Tolerance,
    unknown: torch.Tensor | None = None,
) -> bool:
    """matches(), for a mistake guessed as reads from other places: a candidate of only NaN,
    every guessed read having reached the padding somewhere, proves nothing, since atomics
    into a NaN canary leave only NaN too. `unknown` marks the elements whose guessed reads
    left the guarded buffers, where nothing is known of what a GPU read: the others decide."""
    known = torch.ones_like(got, dtype=torch.bool) if unknown is None else ~unknown.to(got.device)
    candidate = candidate.to(got.device)
    if not bool((known & ~torch.isnan(candidate)).any()):
        return False
    return matches(torch.where(known, got, 0), torch.where(known, candidate, 0), tol)
