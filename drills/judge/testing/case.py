"""One call of a learner's host function, and every check around it: the runner calls it on
stand-ins and records what it asks for; the judge's executor runs that record (the learner's
kernels, from the judge's reading of the file) on the judge's buffers, and the judge grades
the buffers it owns. What the record says of the host code (torch computing, copies) explains
a result; it never makes one."""

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
import torch
import triton

from drills import runtime
from drills.failures import TOO_MANY_PROGRAMS, Kind, Stop
from drills.judge import gpu_compile
from drills.judge.remote import LearnerError, RemoteFunction, buffer_ref, shared_empty
from drills.judge.testing import suite
from drills.judge.testing.compare import (
    Tolerance,
    compare,
    format_index,
    index_of,
    near_miss,
    percent,
    wrong_elements,
)
from drills.judge.testing.guarded import GUARD, Guarded, bits_of, canary_bits
from drills.judge.testing.record import Launch, Returned, Watched, record_of, ref_of, returned_of
from drills.judge.testing.suite import device, fail
from drills.judge.testing.tiles import TileMap, tile_map

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


def values_advice(got: torch.Tensor, expected: torch.Tensor, hints: "Hints") -> str:
    """The advice for wrong values: a result stored through a narrower dtype, named; the
    drill's near-miss advice when they are close."""
    narrowed = narrowed_to(got, expected)
    if narrowed:
        return (
            f"every value stored is a {narrowed} number, where the output is {_dtype_name(got.dtype)}: "
            f"the result went through {narrowed} on its way (a cast to tl.{narrowed}, or a "
            "buffer of that dtype). Convert it to the output's own dtype, "
            "out_ptr.dtype.element_ty, as you store it."
        )
    share = near_miss(got, expected)
    if share is not None and hints.near:
        return (
            f"Every error is under {percent(share)} of the largest value: the size of "
            "rounding, or of a term too many or too few in a long sum, not of a wrong address "
            f"or a missing block. {hints.near}"
        )
    return hints.values


def narrowed_to(got: torch.Tensor, expected: torch.Tensor) -> str:
    """The narrower dtype ("float16", "bfloat16") every finite value of an fp32 `got` is a
    number of, where `expected`'s values are not all such numbers; "" where none is."""
    if got.dtype != torch.float32 or expected.dtype != torch.float32:
        return ""
    finite = got[torch.isfinite(got)]
    for narrow in (torch.bfloat16, torch.float16):  # bf16's numbers in fp16's range are fp16's
        if (
            finite.numel()
            and bool((finite == finite.to(narrow).float()).all())
            and not bool((expected == expected.to(narrow).float()).all())
        ):
            return _dtype_name(narrow)
    return ""


def note(text: str) -> None:
    """Tell the learner something about a case that passes (a config this GPU skipped)."""
    _notes.append(text)


def take_notes() -> list[str]:
    taken = _notes[:]
    _notes.clear()
    return taken


@dataclass
class Extra:
    """An output the call returns after `out` (attention's log-sum-exp): the judge passes it
    by keyword, under its name, wherever it passes out=, and checks it as it checks `out`."""

    out: Guarded
    expected: torch.Tensor
    tol: Tolerance
    hints: "Hints | None" = None  # the case's where None
    # what wrong values of this output say about the mistake, given the last launch
    diagnose: Callable[["Launch | None", torch.Tensor], str] = lambda launch, out: ""
    # False: the call must take and return it, but what it holds is another check's business
    checked: bool = True
    # False: not passed (out= alone is), so the call must make it and return it in its place;
    # then only `out` is checked
    given: bool = True


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
    # outputs the call writes and returns after `out`, in this order, by their keywords
    extra: dict[str, Extra] = field(default_factory=dict)
    # the keyword that passes `out`: another where this case checks one of a case's extras
    out_name: str = "out"

    def outputs(self) -> dict[str, Guarded]:
        """Every output the call writes, by the keyword that passes it, `out` first."""
        return {self.out_name: self.out} | {name: e.out for name, e in self.extra.items()}

    def given_outputs(self) -> dict[str, Guarded]:
        """The outputs the judge passes, by keyword: `out` and the extras it gives."""
        return {n: g for n, g in self.outputs().items() if self.given(n)}

    def given(self, name: str) -> bool:
        return name not in self.extra or self.extra[name].given

    def guarded(self) -> dict[str, Guarded]:
        """Every tensor of the case, inputs and outputs, by name."""
        return self.inputs | self.outputs()

    def checking(self, name: str) -> "Case":
        """The case with its extra output `name` in the place of `out`, to check that one."""
        extra = self.extra[name]
        return dataclasses.replace(
            self,
            out=extra.out,
            expected=extra.expected,
            tol=extra.tol,
            hints=extra.hints or self.hints,
            diagnose=extra.diagnose,
            why_unwritten=lambda launch, unwritten: "",
            tile=lambda launch: None,
            stores=None,
            extra={},
            out_name=name,
        )

    def returned_words(self) -> str:
        """What a call given its outputs must return, in words."""
        names = list(self.outputs())
        if len(names) == 1:
            return f"when `{names[0]}` is given, the function must write into it and return it."
        given = [n for n in names if self.given(n)]
        made = [n for n in names if not self.given(n)]
        words = f"when {', '.join(f'{n}=' for n in given)} {'is' if len(given) == 1 else 'are'}"
        words += f" given, the function must write into {'it' if len(given) == 1 else 'them'}"
        if made:
            words += f" (and make {', '.join(made)}, not given)"
        return f"{words} and return ({', '.join(names)})."

    def returns_its_outputs(self, returned: Returned) -> bool:
        """Whether what a call given its outputs returned is those outputs (a new tensor for
        each extra it was not given)."""
        outputs = self.outputs()
        if not self.extra:
            return returned.is_view_of(outputs[self.out_name].tensor)
        return len(returned.items) == len(outputs) and all(
            r.is_view_of(g.tensor) if self.given(name) else r.type == "Tensor"
            for r, (name, g) in zip(returned.items, outputs.items(), strict=True)
        )

    def outputs_expected(self) -> dict[str, torch.Tensor]:
        """What each output should hold, by its keyword."""
        return {self.out_name: self.expected} | {n: e.expected for n, e in self.extra.items()}

    def reset_outputs(self) -> None:
        for g in self.outputs().values():
            g.reset()


class Verdict(typing.NamedTuple):
    """What a call did wrong: the kind of mistake, the words that say it, and the map of the
    output's tiles where the words draw one (it travels with the case's failure as data)."""

    kind: Kind
    message: str
    tiles: TileMap | None = None


def map_of_tiles(case: "Case", watched: "Watched", unwritten: torch.Tensor) -> TileMap | None:
    """The map of the output's tiles, where the case knows the launch's tile and the output is
    2-D with more than one tile; else None."""
    block = case.tile(watched.launches[-1] if watched.launches else None)
    out = case.out.tensor
    if block is None or out.dim() != 2 or (out.shape[0] <= block[0] and out.shape[1] <= block[1]):
        return None
    wrong = wrong_elements(out, case.expected, case.tol)
    return tile_map(unwritten, wrong, block, watched.writers)


def drawn(tiles: TileMap | None) -> str:
    """A new line and the map, for a message; "" without one."""
    return "\n" + tiles.text() if tiles else ""


def misplaced_stores(
    out: Guarded, name: str = "out", others: dict[str, torch.Tensor] | None = None
) -> str:
    """When the stores into an output landed exactly where another layout of it would put them
    (a column stride taken as 1, a row stride taken as the width or rounded down to a multiple
    of 8 or 16, the strides swapped; two dimensions indexed as one), which one; else "". One
    mistake, one message: the stray stores, the unwritten elements and the wrong values it
    leaves all follow. `others`: the case's inputs, whose row strides a guess may name."""
    t = out.tensor
    if t.dim() < 2:
        return ""
    written, truth = out.written(), out.layout(*t.stride())
    if torch.equal(written, truth) or not bool(written.any()):
        return ""
    guesses = other_layouts(t, written, others) if t.dim() == 2 else merged_layouts(t)
    for strides, what in guesses:
        guess = out.layout(*strides)
        if not torch.equal(guess, truth) and torch.equal(written, guess):
            return layout_message(t, name, strides, what)
    return ""


def other_layouts(
    t: torch.Tensor, written: torch.Tensor, others: dict[str, torch.Tensor] | None
) -> list[tuple[tuple[int, ...], str]]:
    """The layouts a 2-D output is taken for: (strides, the mistake in words)."""
    rows, cols = t.shape
    row_stride, col_stride = t.stride()
    guesses = [
        ((row_stride, 1), "its column stride were 1"),
        ((cols, 1), f"it were contiguous (row stride {cols}, column stride 1)"),
        ((col_stride, row_stride), "its two strides were swapped"),
    ] + [
        ((row_stride // a * a, col_stride), f"its row stride were a multiple of {a}")
        for a in (8, 16)
        if row_stride % a
    ]
    # any other row stride, with columns 1 apart (another side of the problem, K for N):
    # rows - 1 of them between the first element and the last row's last
    span = int(torch.nonzero(written).max()) - GUARD - (cols - 1)
    if rows > 1 and span > 0 and span % (rows - 1) == 0:
        guessed = span // (rows - 1)
        owners = [
            f"`{n}`'s" for n, x in (others or {}).items() if x.dim() == 2 and x.stride(0) == guessed
        ]
        whose = f" ({' and '.join(owners)} row stride)" if owners else ""
        guesses.append(((guessed, 1), f"its row stride were {guessed}{whose}, not {row_stride}"))
    return guesses


def merged_layouts(t: torch.Tensor) -> list[tuple[tuple[int, ...], str]]:
    """The layouts an output of 3 or more dimensions is taken for: contiguous, or two
    neighbouring dimensions indexed as one with the inner one's stride (batch * heads times the
    heads' stride), as where the pointer starts at (b * H + h) * stride_h."""
    contiguous = tuple(torch.empty(t.shape, device="meta").stride())
    guesses = [(contiguous, f"it were contiguous (strides {contiguous})")]
    for k in range(t.dim() - 1):
        strides = list(t.stride())
        strides[k] = t.shape[k + 1] * strides[k + 1]
        guesses.append(
            (
                tuple(strides),
                f"its dimensions {k} and {k + 1} were indexed as one, dimension {k}'s stride "
                f"taken as {t.shape[k + 1]} x dimension {k + 1}'s ({strides[k]})",
            )
        )
    return guesses


def layout_message(t: torch.Tensor, name: str, strides: tuple[int, ...], what: str) -> str:
    real = t.stride()
    view = "a transposed view" if t.dim() == 2 and real[0] == 1 and t.shape[1] > 1 else "a view"
    view = "a tensor" if t.is_contiguous() else view
    if t.dim() == 2:
        landed, meant = (
            f"at i * {strides[0]} + j * {strides[1]}",
            f"element (i, j) is at i * {real[0]} + j * {real[1]}",
        )
    else:
        landed, meant = f"at strides {tuple(strides)}", "each index goes with its own stride"
    promise = (
        f" {real[0]} is not: check a stride on the host before you tell the kernel it is a "
        "multiple of anything."
        if "multiple" in what
        else ""
    )
    return (
        f"the stores landed where `{name}`'s elements would be if {what}, {landed}: `{name}` "
        f"here is {view} with strides {tuple(real)}, so {meant}.{promise} Store through "
        f"{'both' if t.dim() == 2 else 'all'} of its strides, as the host passes them."
    )


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


def _where(offsets: list[int], g: Guarded) -> str:
    """Where offsets from a tensor's first element lie: before it, past its last, or between
    its rows (its columns or elements, where those are not next to each other)."""
    span = g.span
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
        t = g.tensor
        between = "rows" if t.stride(-1) == 1 else "columns" if t.dim() > 1 else "elements"
        parts.append(f"{inside} in the gaps between {between}")
    return "; ".join(parts)


AGAIN = " again"  # the judge's name for a tensor of a second call that the first does not take


def watch(
    case: Case,
    *,
    with_out: bool,
    fetch_into: list[torch.Tensor] | None = None,
    returns_wrong: Callable[[Returned], str | None] = lambda returned: None,
    again: Case | None = None,
) -> Watched:
    """Call the case's function (with `out=`, and its extra outputs, if with_out) and run what
    it asked for on the case's buffers; with fetch_into, copy the tensors it returned there
    (one, or a tuple's, in order), unless returns_wrong finds fault with what it returned
    first (the test fails with that message). With `again`, a second call on that case's
    inputs, into its outputs, follows the first in the same record."""
    kwargs = dict(case.kwargs)
    guarded = {name: g.tensor for name, g in case.inputs.items()}
    if with_out:
        for name, g in case.given_outputs().items():
            kwargs[name] = g.tensor
            guarded[name] = g.tensor
    again_kwargs = again_args = None
    if again is not None:
        # the second call is given outputs where the first is
        given = again.given_outputs() if with_out else {}
        again_kwargs = kwargs | {name: g.tensor for name, g in given.items()}
        again_args = [g.tensor for g in again.inputs.values()]
        own = [id(g) for g in case.guarded().values()]
        guarded |= {
            f"{name}{AGAIN}": g.tensor
            for name, g in (again.inputs | given).items()
            if id(g) not in own  # an input both calls take is guarded once
        }
    args = [g.tensor for g in case.inputs.values()]
    config = case.config
    writers = None
    if with_out and not runtime.current().is_gpu:
        writers = shared_empty(case.out.buffer.numel(), torch.int32, device())
    while True:
        reply = case.fn.call(
            args,
            kwargs,
            config=config,
            benchmark=case.benchmarked,
            again=again_kwargs,
            again_args=again_args,
        )
        if reply.get("pruned"):
            raise ConfigPruned(str(reply["pruned"]))
        steps, computed, returned = record_of(reply)
        must_compile(case, steps)
        if not runtime.current().is_gpu and holds_bf16(case):
            # the call is recorded and its kernels compile for sm_90 as a GPU would run them
            # (a p.to(tl.float16) before tl.dot with bf16 v does not); running them needs a GPU
            pytest.skip("needs a GPU: the interpreter has no bf16 (its kernels do compile)")
        crowded, all_crowded = launches_past_the_interpreter(steps)
        if crowded and not runtime.current().is_gpu:
            if suite.running_a_large_case and all_crowded:  # recorded, compiled for sm_90
                pytest.skip(f"{TOO_MANY_PROGRAMS}: {crowded}; a GPU runs this case")
            fail(
                Kind.TIMEOUT,
                f"{crowded}: use larger blocks, or fewer programs that each take several. A "
                "GPU would run it; on the CPU a case this size cannot be judged so.",
                case.name,
            )
        again_returned = returned_of(reply.get("again_result")) if again is not None else None
        problem = returns_wrong(returned)
        if problem:
            fail(Kind.WRONG_RETURN, problem, case.name)
        fetch = None
        if fetch_into is not None:
            items = returned.items if case.extra else [returned]
            fetch = [
                {"into": into, "from": item.spec}
                for into, item in zip(fetch_into, items, strict=True)
                if item.type == "Tensor"
            ]
        if writers is not None:
            writers.fill_(-1)
        past_end = inputs_ending_at_unmapped_memory(case)
        try:
            reply = case.fn.code.replay(
                steps, guarded, fetch, {"out": writers} if writers is not None else None, past_end
            )
            break
        except LearnerError as e:
            if e.kind == Stop.CUDA_FAULT and past_end:
                read_past = case.fn.code.read_past_the_end(steps, guarded, past_end)
                if read_past:
                    fail(Kind.READ_OUTSIDE, past_the_end(case, read_past), case.name)
            if e.kind == Stop.CUDA_FAULT and case.fault_advice:
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
                e.kind != Stop.OUT_OF_RESOURCES
                or case.config is not None
                or config["index"] >= len(case.fn.code.configs(kernel, case.fn.__name__))
            ):
                # a kernel that crashed or did not compile: a mask written as a chain is a
                # likely cause of either
                raise LearnerError(
                    e.kind, f"{in_file_lines(case, str(e))}{read_in_kernels(case)}", e.shows, e.line
                ) from None
            case.reset_outputs()
    reads = reply.get("reads_outside") if isinstance(reply.get("reads_outside"), dict) else {}
    counted = reply.get("reads_outside_count")
    counted = counted if isinstance(counted, dict) else {}
    # the judge's tensors, and the temporaries of the host (read past their ends)
    known = set(guarded) | {s.get("ref") for s in steps if s.get("step") == "alloc"}
    return Watched(
        returned,
        [Launch.from_step(s) for s in steps if s.get("step") == "launch"],
        [s for s in steps if s.get("step") == "copy"],
        computed,
        {
            name: [o for o in offsets if isinstance(o, int)]
            for name, offsets in reads.items()
            if name in known and isinstance(offsets, list)
        },
        {name: n for name, n in counted.items() if name in known and isinstance(n, int)},
        case.out.like_tensor(writers) if writers is not None else None,
        again_returned,
        sum(s.get("step") == "alloc" and s.get("kept") is True for s in steps),
        steps,
    )


class ConfigPruned(Exception):
    """A case's config is one the kernel's own pruning (prune_configs_by) removes for its
    call: autotune never runs it there, and neither does the judge."""


def holds_bf16(case: Case) -> bool:
    return any(g.tensor.dtype == torch.bfloat16 for g in case.guarded().values())


# The most programs a launch may have on the interpreter, at about a millisecond each: some
# 20 s, a third of a case's time there (drills/limits.py), for the launches beside it and a busy
# machine
INTERPRETER_PROGRAMS = 20_000


def launches_past_the_interpreter(steps: list[dict]) -> tuple[str, bool]:
    """Why the interpreter cannot run this record in a case's time, or "": a launch of more
    programs than it runs in that time (a tiny BLOCK_SIZE over a long vector); and whether
    every launch of the record is such a one (the work itself, not a decoy launched beside a
    small one)."""
    launches = [Launch.from_step(step) for step in steps if step.get("step") == "launch"]
    crowded = [launch for launch in launches if launch.programs() > INTERPRETER_PROGRAMS]
    if not crowded:
        return "", False
    first = crowded[0]
    return (
        f"{first.kernel}[{tuple(first.grid)}] is {first.programs():,} programs, more than the "
        f"interpreter runs in a case's time (about one a millisecond, {INTERPRETER_PROGRAMS:,} "
        "at most)",
        len(crowded) == len(launches),
    )


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


def only_copied_from(watched: Watched, t: torch.Tensor) -> bool:
    """Whether the record copied out of `t` and never into it."""
    ref = buffer_ref(t)
    return any(ref_of(c.get("from")) == ref for c in watched.copies) and not any(
        ref_of(c.get("into")) == ref for c in watched.copies
    )


def copies_touching(watched: Watched, tensors: list[torch.Tensor]) -> int:
    """How many copies of the record read or wrote one of these tensors (the operands, out)."""
    refs = {buffer_ref(t) for t in tensors}
    return sum(
        ref_of(c.get("into")) in refs or ref_of(c.get("from")) in refs for c in watched.copies
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


def check_allocates(case: Case, then: Case | None = None) -> None:
    """Call the learner's function without out= (nor its extra outputs): it must launch its
    kernel and return a new tensor (a tuple of them, with extras) with the expected shape,
    dtype, device and values, leaving the inputs alone. With `then`, a second call without
    out= on then's inputs follows in the same record, and the first call's results must still
    hold its own values afterwards (a result kept between calls and handed out again does
    not)."""
    names = list(case.outputs())
    call = f"{case.fn.__name__}({', '.join(case.inputs)}) without {'= or '.join(names)}="
    before = {name: g.snapshot() for name, g in case.inputs.items()}
    checked = [case] + [case.checking(name) for name in case.extra]
    results = []
    for c in checked:
        want = c.expected
        result = shared_empty(want.numel(), want.dtype, want.device.type).view(want.shape)
        bits_of(result).fill_(canary_bits(want.dtype, output=True))
        results.append(result)

    def failed(kind: Kind, message: str) -> typing.NoReturn:
        fail(kind, f"{call}: {message}{read_in_kernels(case)}", case.name)

    def tensor_wrong(got: Returned, want: torch.Tensor, what: str) -> str | None:
        if got.type != "Tensor":
            return f"{call}: returned {got.type}{what}, not a tensor."
        expected = (tuple(want.shape), _dtype_name(want.dtype))
        if (got.shape(), got.spec.get("dtype")) != expected:
            return (
                f"{call}: returned {got.shape()} {got.spec.get('dtype')}{what}; expected a new "
                f"{expected[0]} {expected[1]} tensor on {want.device.type}."
            )
        if got.spec.get("device") != want.device.type:
            return (
                f"{call}: returned a tensor on {str(got.spec.get('device'))[:20]}{what}, where "
                f"its inputs are on "
                f"{want.device.type}: allocate it on theirs, torch.empty(..., device=x.device)."
            )
        if any(got.spec.get("ref") == buffer_ref(g.tensor) for g in case.inputs.values()):
            return f"{call}: returned one of its inputs{what}: allocate a new output tensor."
        return None

    def returns_wrong(got: Returned) -> str | None:
        """Read before anything runs: the judge fetches only results of the expected shapes."""
        if not case.extra:
            return tensor_wrong(got, case.expected, "")
        if len(got.items) != len(names):
            return f"{call}: returned {got.type}; expected a tuple ({', '.join(names)})."
        for item, c, name in zip(got.items, checked, names, strict=True):
            wrong = tensor_wrong(item, c.expected, f" as `{name}`")
            if wrong:
                return wrong
        return None

    watched = watch(
        case, with_out=False, fetch_into=results, returns_wrong=returns_wrong, again=then
    )
    for name, guarded in case.inputs.items():
        if guarded.changed_since(before[name]):
            failed(
                Kind.CHANGED_INPUT, f"changed its input {name}: write into a new tensor instead."
            )
    unchecked = [name for name, e in case.extra.items() if not e.checked]
    for c, result, name in zip(checked, results, names, strict=True):
        report = None if name in unchecked else compare(result, c.expected, c.tol)
        if report:
            launch = watched.launches[-1] if watched.launches else None
            why = why_not_the_kernel(watched, c.hints)
            if why:
                failed(why[0], why[1] + read_in_source(c))
            advice = c.diagnose(launch, result) or values_advice(result, c.expected, c.hints)
            if then is not None and compare(result, then.outputs_expected()[name], c.tol) is None:
                advice = REUSED_RESULT_ADVICE
            kept = KEPT_ADVICE if watched.kept else ""
            in_it = f" as `{name}`" if case.extra else ""
            failed(Kind.WRONG_VALUES, f"returned wrong values{in_it}.\n{report}\n{advice}{kept}")


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def recorded_launches(case: Case) -> list[Launch]:
    """The launches a call of the case asks for, in order, as the runner's record has them
    (with the config autotune keeps, the first): nothing is run or compiled."""
    args = [g.tensor for g in case.inputs.values()]
    steps, _, _ = record_of(case.fn.call(args, dict(case.kwargs) | {"out": case.out.tensor}))
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
        found = Verdict(Kind.TILE_ORDER, order) if order else None
    if found:
        fail(found.kind, found.message, case.name, found.tiles)
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


def writers_by_prefix(case: Case, watched: Watched, axis: int = 0) -> torch.Tensor | None:
    """On a GPU, which program stored each element of the output, shaped like it: the record
    run again with `axis` of its last launch's grid cut to its first k programs, k = 1, 2, ...;
    what a cut writes first (against what the record leaves there without that launch) is
    program k - 1's (its place along that axis). A program's work cannot depend on how many
    run unless the file reads the grid's size (tl.num_programs) or waits on other programs
    (which takes atomics): for such files, or where a cut run fails, None. A persistent
    kernel's programs keep their tiles, their stride over the tiles being a number the launch
    passes. The output holds the last cut's values afterwards."""
    launch = watched.launches[-1]
    last = max(i for i, s in enumerate(watched.steps) if s.get("step") == "launch")
    programs = launch.grid[axis] if len(launch.grid) > axis else 0
    text = case.fn.code.source.text
    if not 0 < programs <= MOST_PREFIXES or "num_programs" in text or "atomic_" in text:
        return None
    writers = torch.full(case.out.buffer.shape, -1, dtype=torch.int32)
    # what the host's own steps leave in the output (a config's pre_hook may zero it) is no
    # program's: the record without its last launch, from which each cut's writes differ
    case.out.reset()
    if not replayed(case, watched.steps[:last] + watched.steps[last + 1 :]):
        return None
    before = case.out.snapshot()
    for k in range(1, programs + 1):
        steps = list(watched.steps)
        grid = list(launch.grid)
        grid[axis] = k
        steps[last] = steps[last] | {"grid": grid}
        case.out.reset()
        if not replayed(case, steps):
            return None
        first = case.out.written(before).cpu() & (writers < 0)
        writers[first] = k - 1
    return case.out.like_tensor(writers)


def run_in_every_autotune_config(case: Case) -> None:
    """The case in each config of every autotuned kernel its call launches, forced in turn:
    autotune may keep any of them (on a GPU, timing decides), so the grid and the masks must
    follow the config a launch got, not the first. Each runs twice: a first call of a shape
    times every config into the output, which the last of them may leave right; the second
    runs the config kept, alone. Nothing runs where the call launches no autotuned kernel; a
    config the kernel's own pruning removes is skipped, as autotune skips it."""
    code, entry = case.fn.code, case.fn.__name__
    for kernel in dict.fromkeys(kernels_launched(case)):
        for index, config in enumerate(code.configs(kernel, entry)):
            forced = dataclasses.replace(
                case,
                name=f"{case.name}, {config.replace(': ', '=')}",
                config={"kernel": kernel, "index": index},
            )
            try:
                run_twice(forced)
            except ConfigPruned:
                continue


def reads_of_one_call(watched: Watched, second: bool) -> Watched:
    """What `watched` saw the first call (or the second) read outside its tensors: each call's
    tensors by their own names, and the host's temporaries with the first."""

    def of_it(reads: dict) -> dict:
        return {
            name.removesuffix(AGAIN): value
            for name, value in reads.items()
            if name.endswith(AGAIN) == second
        }

    return dataclasses.replace(
        watched,
        reads_outside=of_it(watched.reads_outside),
        reads_counted=of_it(watched.reads_counted),
    )


def run_twice(case: Case, then: Case | None = None) -> None:
    """Call the learner's function twice in a row: on the case, then on `then`'s inputs (other
    values of the same shapes, as a program's next batch) or, without it, on the same inputs
    again (copies, so that a read outside them is known to be the second call's), each time
    into fresh outputs: both results must be right. What the first call leaves behind (a
    workspace allocated once and zeroed only then, a cached tensor, a max kept from the first
    inputs) reaches the second, as it would in a program that calls the function in a loop."""
    inputs = "the same inputs" if then is None else "other inputs of the same shapes"
    if then is None:
        extra = {name: dataclasses.replace(e, out=e.out.like()) for name, e in case.extra.items()}
        twins = {name: g.twin() for name, g in case.inputs.items()}
        then = dataclasses.replace(case, inputs=twins, out=case.out.like(), extra=extra)
    before = {name: g.snapshot() for name, g in case.inputs.items()}
    before_then = {name: g.snapshot() for name, g in then.inputs.items()}
    watched = watch(case, with_out=True, again=then)
    found = failure(case, reads_of_one_call(watched, second=False), before)
    if found:
        fail(found.kind, found.message, f"{case.name}, the first of two calls", found.tiles)
    # autotune's cache answers the second call of a shape: nothing is timed
    found = failure(
        dataclasses.replace(
            then, benchmarked=False, config=case.config, launched_with=case.launched_with
        ),
        dataclasses.replace(
            reads_of_one_call(watched, second=True), returned=watched.again, writers=None
        ),
        before_then,
    )
    if found and case.config is not None and not case.benchmarked:
        fail(found.kind, f"{found.message}\n{CONFIG_ALONE_ADVICE}", case.name, found.tiles)
    if found:
        fail(
            Kind.SECOND_CALL,
            f"the first of two calls in a row was right, the second ({inputs}, a fresh "
            f"`out`) was not: {found.message}\n{SECOND_CALL_ADVICE}",
            then.name,
            found.tiles,
        )


REUSED_RESULT_ADVICE = (
    "After a second call without out=, on other inputs, the first call's result held the "
    "second's values: the function handed out the same tensor twice (a result kept between "
    "calls, by shape). Allocate a new result on every call; a caller keeps the first."
)
KEPT_ADVICE = (
    "\nThe call used a tensor it did not make (a tensor kept between calls, or one made "
    "outside torch): the judge cannot know what it held, and starts it as NaN, like new "
    "memory. Zero or rewrite such a tensor in every call, before a kernel reads it."
)
CONFIG_ALONE_ADVICE = (
    "This config ran alone in the second of two calls: autotune may keep any of a kernel's "
    "configs (on a GPU, timing decides), and the first call of a shape also ran the others into "
    "the output. The grid and the masks must follow the config a launch gets: grid = lambda "
    "META: (triton.cdiv(n, META['BLOCK_SIZE']),), and no block size fixed in host code."
)
SECOND_CALL_ADVICE = (
    "Something the first call left behind changed the second: a tensor kept between calls (a "
    "workspace allocated once, a cached output, a max merged into with atomics) must be "
    "zeroed, or reset to its starting value, or rewritten in every call, before the kernel "
    "uses it."
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


def failure(case: Case, watched: Watched, before: dict) -> Verdict | None:
    """What the call `watched` did wrong, or None where it did what the case asks. Every
    verdict comes from the judge's buffers; the record only says why."""
    refused = warps_refused(watched)
    if refused:
        return Verdict(*refused)
    wrong = wrong_buffers(case, watched, before)
    for name, extra in case.extra.items():
        if extra.checked and extra.given:
            wrong = wrong or wrong_buffers(case.checking(name), watched, before)
    if wrong:
        output_wrong, verdict = wrong
        kind, message, tiles = verdict
        if output_wrong:
            kind, message = why_not_the_kernel(watched, case.hints) or (kind, message)
            message += read_in_source(case) + (KEPT_ADVICE if watched.kept else "")
        return Verdict(kind, message + read_in_kernels(case), tiles)
    if not case.returns_its_outputs(watched.returned):
        return Verdict(Kind.WRONG_RETURN, case.returned_words())
    found = strides_sidestepped(case, watched) or config_not_used(case, watched)
    return Verdict(*found) if found else None


HOST_WRITES = {"fill": "a fill", "copy": "a copy", "values": "values set from Python"}


def host_writes_into(steps: list[dict], guarded: Guarded) -> str:
    """How the call's host code wrote into the tensor `guarded` holds, in words ("torch's
    masked_fill_, a copy"), or "" where it did not: the record's steps into its buffer."""
    ref = buffer_ref(guarded.tensor)
    ways = []
    for step in steps:
        into = step.get("into")
        if not isinstance(into, dict) or into.get("ref") != ref:
            continue
        kind = step.get("step")
        way = (
            f"torch's {str(step.get('by'))[:40]}" if kind == "host_wrote" else HOST_WRITES.get(kind)
        )
        if way and way not in ways:
            ways.append(way)
    return ", ".join(ways[:3])


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


def wrong_buffers(case: Case, watched: Watched, before: dict) -> tuple[bool, Verdict] | None:
    """What the judge's buffers show is wrong, or None: (whether the output is wrong or
    unwritten, the verdict)."""
    out = case.out.tensor
    launch = watched.launches[-1] if watched.launches else None
    out_name = case.out_name
    the_output = "the output" if out_name == "out" else f"the output `{out_name}`"
    elements = "output elements" if out_name == "out" else f"elements of `{out_name}`"
    inputs = {n: g.tensor for n, g in case.inputs.items()}
    misplaced = misplaced_stores(case.out, out_name, inputs)
    if misplaced:
        return True, Verdict(Kind.STRIDES, misplaced)
    # a stray store lands in the output's padding first, and further on in other buffers
    outside = case.out.written_outside()
    if outside:
        why = (
            descriptor_store_chunks(case, watched.launches, outside, runtime.current().is_gpu)
            or case.why_outside(launch, out_name, outside)
            or case.hints.outside
        )
        return False, Verdict(
            Kind.WROTE_OUTSIDE,
            (
                f"wrote {_elements(len(outside))} outside {the_output}: "
                f"{_where(outside, case.out)}. {why}"
            ),
        )
    for name, guarded in case.inputs.items():
        changed = guarded.changed_since(before[name])
        if changed:
            by_the_host = host_writes_into(watched.steps, guarded)
            if by_the_host:
                return False, Verdict(
                    Kind.CHANGED_INPUT,
                    f"the host code wrote into the input `{name}` ({by_the_host}): inputs must "
                    "stay read-only. Work on a copy (x.clone()), or leave the values as they are "
                    "and handle them in the kernel.",
                )
            return False, Verdict(
                Kind.CHANGED_INPUT,
                (
                    f"the kernel changed {changed} elements of the input `{name}` (or the "
                    f"padding around it); inputs must stay read-only. {case.hints.outside}"
                ).rstrip(),
            )
    for name, offsets in watched.reads_outside.items():
        if offsets and name not in case.guarded():
            wrong = compare(out, case.expected, case.tol) is not None
            advice = (wrong and case.diagnose(launch, out)) or MASK_LIKE_THE_STORES
            message = f"{read_past_a_temporary(watched, name)} {advice[:1].upper()}{advice[1:]}"
            return False, Verdict(Kind.READ_OUTSIDE, message)
        if offsets:
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
            return False, Verdict(
                kind,
                (
                    f"read {_elements(count)} outside `{name}`{shown}: "
                    f"{_where(sorted(offsets), case.guarded()[name])}. {effect} {advice[:1].upper()}{advice[1:]}"
                ).rstrip(),
            )
    owner = lambda idx: case.owner(launch, idx)
    unwritten = case.out.never_written()
    if bool(unwritten.any()):
        untouched = (
            bool(unwritten.all())
            and watched.launches
            and not any(launch.touches(out) for launch in watched.launches)
        )
        if untouched and not copies_touching(watched, [out]):
            return True, Verdict(
                Kind.NO_LAUNCH,
                (
                    f"no kernel launch was given the output tensor `{out_name}`: the kernel "
                    f"must write the result into `{out_name}`."
                ),
            )
        if untouched and only_copied_from(watched, out):
            return True, Verdict(
                Kind.NEVER_WRITTEN,
                (
                    f"the kernels wrote into a copy of `{out_name}` ({out_name}.contiguous(), "
                    f".clone(), ...), never into `{out_name}` itself, whose elements all still "
                    f"hold the judge's fill: pass `{out_name}` and its strides "
                    f"({out_name}.stride()) to the kernel, or copy the result back into it."
                ),
            )
        flat = torch.nonzero(unwritten.flatten()).flatten()
        first = index_of(int(flat[0]), tuple(out.shape))
        who = owner(first)
        where = f"(first at index {format_index(first)}{', ' + who if who else ''})"
        if adds_with_atomics(case):
            # an atomic add into the judge's fill (NaN) keeps it NaN
            return True, Verdict(
                Kind.NOT_ZEROED,
                (
                    f"{len(flat)} of {out.numel()} {elements} still hold NaN, which the "
                    f"judge fills new memory with {where}. {ATOMICS_ADVICE} If it does, then: "
                    f"{case.hints.unwritten}"
                ),
            )
        reads = reads_its_output(case, watched)
        seen = (
            f"{len(flat)} of {out.numel()} {elements} hold the judge's fill of `{out_name}` "
            f"{where} after the call."
            if reads
            else f"{len(flat)} of {out.numel()} {elements} were never written {where}."
        )
        tiles = map_of_tiles(case, watched, unwritten)
        advice = reads or case.why_unwritten(launch, unwritten) or case.hints.unwritten
        kind = Kind.RACE if reads else Kind.NEVER_WRITTEN
        said = seen + (f"{drawn(tiles)}\n{advice}" if tiles else f" {advice}")
        return True, Verdict(kind, said, tiles)
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
        advice = advice or values_advice(out, case.expected, case.hints)
        tiles = map_of_tiles(case, watched, unwritten)
        in_it = "" if out_name == "out" else f" in `{out_name}`"
        return True, Verdict(
            kind, f"wrong values{in_it}.\n{report}{drawn(tiles)}\n{advice}".rstrip(), tiles
        )
    return None


RUN_TO_RUN = (
    "The result changes from one run to the next on the same inputs (the judge ran the call's "
    "record again): programs race, two storing into the same element, or one reading a block "
    "another stores. A GPU runs programs at the same time, in no order, and the CPU "
    "interpreter in an order drawn at each launch: each element must be stored by one "
    "program, from what the inputs hold."
)
READS_ITS_OUTPUT = (
    "The result depends on what `out` held before the call, or on the order the programs ran "
    "in: run again with `out` zeroed instead of the judge's fill, it came out different. A "
    "kernel must not read `out` before it writes it, and no program may read what another "
    "stores in the same launch (in `out` or in a buffer of its own): programs race, since a "
    "GPU runs them at the same time, in no order (the CPU interpreter, in an order drawn at "
    "each launch)."
)


def read_past_a_temporary(watched: Watched, ref: str) -> str:
    """The message for loads past the end of a tensor the host code made (the executor notes
    them under its ref, in bytes from its start), in elements of the views the kernels got."""
    steps = watched.steps
    nbytes = next(s["nbytes"] for s in steps if s.get("step") == "alloc" and s.get("ref") == ref)
    views = {
        name: value.get("dtype")
        for s in steps
        if s.get("step") == "launch" and isinstance(s.get("args"), dict)
        for name, value in s["args"].items()
        if isinstance(value, dict) and value.get("ref") == ref
    }
    dtypes = [getattr(torch, str(d), None) for d in views.values()]
    dtype = next((d for d in dtypes if isinstance(d, torch.dtype)), torch.uint8)
    size = dtype.itemsize
    past = sorted({(offset - nbytes) // size + 1 for offset in watched.reads_outside[ref]})
    shown = "" if len(past) == 1 else f" to the {_ordinal(past[-1])}"
    given = f", passed as {', '.join(f'`{name}`' for name in sorted(views))}" if views else ""
    return (
        f"read past the end of a tensor your host code made ({nbytes // size} {_dtype_name(dtype)} "
        f"elements{given}): the {_ordinal(past[0])}{shown} element after its last. On a GPU "
        "that is another tensor's memory, or none."
    )


MASK_LIKE_THE_STORES = "mask these loads as the stores that fill that tensor are masked."


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


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
    first, unwritten = bits_of(out.tensor).clone(), out.never_written()

    def run_again(zeroed: bool) -> torch.Tensor | None:
        out.reset()
        if zeroed:
            bits_of(out.tensor).zero_()
        return bits_of(out.tensor).clone() if replayed(case, watched.steps) else None

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
