"""What a call did, as the runner tells it: its launches, what it returned, and the record the
judge's executor ran."""

import math
from dataclasses import dataclass, field

import torch

from drills.failures import Kind, Stop
from drills.judge.remote import LearnerError, buffer_ref

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
        return any(ref_of(a) == wanted for a in self.args.values())


def ref_of(value) -> str | None:
    if not isinstance(value, dict):
        return None
    if "descriptor" in value:
        value = value.get("base")
    return value.get("ref") if isinstance(value, dict) else None


@dataclass
class Returned:
    """What a call returned, from the runner's record: a tensor is a spec of the judge's
    buffers or of a temporary of the record."""

    type: str
    spec: dict = field(default_factory=dict)
    items: list["Returned"] = field(default_factory=list)  # of a returned tuple or list

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


def record_of(reply: dict) -> tuple[list[dict], list[str], Returned]:
    """The steps, host computations and result of a runner's reply, checked for shape (the
    executor refuses what it cannot run)."""
    steps = reply.get("steps") if isinstance(reply.get("steps"), list) else []
    if reply.get("too_long"):
        raise LearnerError(
            Stop.FAILED,
            "the call asked for too many launches and copies to grade (over 2000): a drill "
            "needs a few launches.",
            Kind.JUDGE_CANNOT_RUN,
        )
    steps = [s for s in steps if isinstance(s, dict)]
    computed = reply.get("computed") if isinstance(reply.get("computed"), list) else []
    return steps, [str(c)[:100] for c in computed][:50], returned_of(reply.get("result"))


def returned_of(result, depth: int = 0) -> Returned:
    """What a call returned, from a reply's description of it (a tuple's items one level
    down)."""
    result = result if isinstance(result, dict) else {}
    spec = {k: result.get(k) for k in ("ref", "dtype", "shape", "stride", "offset", "device")}
    items = result.get("items") if depth == 0 and isinstance(result.get("items"), list) else []
    return Returned(
        str(result.get("type", "?"))[:100], spec, [returned_of(i, depth + 1) for i in items[:8]]
    )
