"""A failing case as data: the kind of mistake the judge saw, its words (the symptom seen first,
the evidence, the advice), and where (the case, the line of the learner's file).

The judge builds one where it sees the failure: the check that saw it names its kind, and the
judge's plugin splits the judge's own message into its parts (drills/judge/plugin.py). It
travels as JSON in the judge's events and in the grader's JSON; the terminal, the exports and
the Chinese edition (drills/chinese.py, by kind) read its fields, and none of them parses a
message. Standard library only: the grader reads it without torch.
"""

import re
from dataclasses import asdict, dataclass
from enum import StrEnum


class Kind(StrEnum):
    """What kind of mistake a failing case showed."""

    WROTE_OUTSIDE = "wrote_outside"  # stores past the output
    READ_BEFORE_START = "read_before_start"  # loads before an input's first element
    READ_OUTSIDE = "read_outside"  # loads past an input
    RACE = "race"  # the result is not a function of the inputs
    NEVER_WRITTEN = "never_written"
    CHANGED_INPUT = "changed_input"
    HOST_COMPUTED = "host_computed"  # torch computed (or copied) what the kernel should
    NO_LAUNCH = "no_launch"
    NOT_ZEROED = "not_zeroed"  # atomics added into memory nobody zeroed
    SECOND_CALL = "second_call"  # right once, wrong on the next call
    STRIDES = "strides"  # the stores landed where another layout would put them
    WRONG_VALUES = "wrong_values"
    WRONG_RETURN = "wrong_return"  # not a tensor, an input, or the wrong shape or place
    GROUPED_TILE = "grouped_tile"  # T4's pid-to-tile helper, probed
    TILE_ORDER = "tile_order"  # right values, in an order of tiles that is not grouped
    GPU_LIMIT = "gpu_limit"  # a launch no NVIDIA GPU runs (grid axes, TMA alignment)
    NOT_AUTOTUNED = "not_autotuned"
    NOT_SPLIT = "not_split"  # right values, from fewer programs a row than parts asked for
    SCORES_IN_MEMORY = "scores_in_memory"  # a temporary as large as attention's scores
    NOT_COMPILED = "not_compiled"  # runs on the interpreter, refused by the GPU compiler
    GPU_REFUSES = "gpu_refuses"  # num_warps, shared memory, no config that loads
    JUDGE_CANNOT_RUN = "judge_cannot_run"  # host code asked for what the judge will not run
    CUDA_FAULT = "cuda_fault"
    RAISED = "raised"  # the learner's code raised an exception
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    NOT_STARTED = "not_started"
    IMPORT_ERROR = "import_error"
    TAMPERED = "tampered"  # the learner's code changed the grader's own files
    GPU_MEMORY = "gpu_memory"  # no GPU memory left for the judge's own buffers
    GRADER_FAILED = "grader_failed"  # the judge's own failure, never the learner's


class Status(StrEnum):
    """How a check, or a whole drill, ended: what the terminal shows and the native JSON says
    (the exports map it to their consumers' own words)."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_STARTED = "not_started"  # the file still raises NotStarted
    ERROR = "error"  # the file cannot be imported
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"  # every case needs a GPU


class Stop(StrEnum):
    """How a case stopped without a result from the learner's code (the kind of a
    drills.judge.remote.LearnerError); the grader makes each a check's Status."""

    FAILED = "failed"
    NOT_STARTED = "not_started"
    IMPORT_ERROR = "import_error"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    CUDA_FAULT = "cuda_fault"
    OUT_OF_RESOURCES = "out_of_resources"  # the GPU refused the launch (registers, memory)


# A case skipped on the interpreter because its launches have more programs than the
# interpreter runs in a case's time (drills/judge/testing/case.py): a GPU runs it. A check with
# no more cases run than skipped so fails, or a kernel with a huge grid would pass untested.
TOO_MANY_PROGRAMS = "too many programs for the interpreter"


class Outcome(StrEnum):
    """How one case came out, as the judge's events say."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # needs a GPU, or more GPU memory than is free
    NOT_RUN = "not_run"  # its check had already failed, or it does not apply to the file
    MISSING = "missing"  # never reported: the judge stopped first (the grader's word)


# The check's status each way of stopping gives.
STATUS_OF_STOP = {
    Stop.FAILED: Status.FAILED,
    Stop.NOT_STARTED: Status.NOT_STARTED,
    Stop.IMPORT_ERROR: Status.ERROR,
    Stop.TIMEOUT: Status.TIMEOUT,
    Stop.CRASHED: Status.CRASHED,
    Stop.CUDA_FAULT: Status.CRASHED,
    Stop.OUT_OF_RESOURCES: Status.FAILED,
}

# The kind of mistake each way of failing is, where nothing names another: how a case stopped
# and a check's status (an import that failed).
SHOWN_BY_STATUS = {
    Stop.NOT_STARTED: Kind.NOT_STARTED,
    Stop.IMPORT_ERROR: Kind.IMPORT_ERROR,
    Status.ERROR: Kind.IMPORT_ERROR,
    Stop.TIMEOUT: Kind.TIMEOUT,
    Stop.CRASHED: Kind.CRASHED,
    Stop.CUDA_FAULT: Kind.CUDA_FAULT,
    Stop.OUT_OF_RESOURCES: Kind.GPU_REFUSES,
}


@dataclass
class Failure:
    """One failing case. `details` is everything the message says after the symptom, the
    advice last; `case` the case's id, `label` its name in the message (n=1000 fp32 seed=1);
    `line` the line of the learner's file it points at, where it points at one."""

    kind: Kind
    symptom: str
    details: str = ""
    advice: str = ""
    case: str = ""
    label: str = ""
    line: int | None = None

    @classmethod
    def from_message(
        cls, kind: Kind, message: str, *, case: str = "", label: str = "", line: int | None = None
    ) -> "Failure":
        """The judge's own message, taken apart once, where it was written: the symptom is its
        first sentence (with the next line, where the first is bare: "wrong values." then how
        it showed), the details the rest, the advice their last line."""
        first_line, _, more = message.strip().partition("\n")
        symptom, rest = _first_sentence(first_line)
        next_line = more.strip().partition("\n")[0]
        if not rest and next_line and not next_line.endswith(":"):
            # a bare first line: the next says how it showed, unless it heads a block of its
            # own (a map of tiles)
            next_line, _, more = more.strip().partition("\n")
            seen, rest = _first_sentence(next_line)
            symptom = f"{symptom}: {seen}"
        details = "\n".join(part for part in (rest, more) if part.strip())
        lines = [line.strip() for line in details.splitlines() if line.strip()]
        advice = lines[-1] if lines else ""
        return cls(Kind(kind), symptom, details, advice, case, label, line)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Failure":
        return cls(**{**data, "kind": Kind(data["kind"])})

    @staticmethod
    def valid_json(data) -> bool:
        """Whether `data` is a failure as to_json writes it."""
        return (
            isinstance(data, dict)
            and set(data) == {"kind", "symptom", "details", "advice", "case", "label", "line"}
            and data["kind"] in set(Kind)
            and all(isinstance(data[k], str) for k in ("symptom", "details", "advice", "case"))
            and isinstance(data["label"], str)
            and (data["line"] is None or (isinstance(data["line"], int) and data["line"] > 0))
        )


def _first_sentence(line: str) -> tuple[str, str]:
    """(the line's first sentence, the rest of the line). A sentence ends at a full stop
    followed by a space and a capital, outside brackets; a last one loses its full stop or
    colon."""
    depth = 0
    for i, char in enumerate(line):
        depth += (char in "([") - (char in ")]")
        if char == "." and depth == 0 and re.match(r" +[A-Z`]", line[i + 1 :]):
            return line[:i], line[i + 1 :].strip()
    return line.rstrip(".:"), ""
