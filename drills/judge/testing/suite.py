"""What a graded suite is made of: its checks, its GPU-only and bf16 cases, the seeds and drawn
sizes of its inputs, a case's verdict (CaseFailed), and the lock its large GPU cases share."""

import contextlib
import gc
import os
import random
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from drills import runtime, spec
from drills.failures import Kind
from drills.judge import gpu_compile, remote


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

LARGE_ON_THE_INTERPRETER = "large_on_the_interpreter"
# whether the case now running is so marked: the plugin sets it as each case starts
running_a_large_case = False


def large_on_the_interpreter():
    """Mark a CPU case large enough that a kernel of tiny blocks launches more programs than
    the interpreter runs in a case's time: there such a kernel's case is left to a GPU. Only
    a case so marked may be: else a file could choose which of its cases the CPU runs."""
    return getattr(pytest.mark, LARGE_ON_THE_INTERPRETER)


class CaseFailed(pytest.fail.Exception):
    """A case's verdict: the kind of mistake it showed (drills.failures), its message, the
    case's name in it (its label; "" for a check that fails as a whole), and the map of the
    output's tiles where the message draws one (a TileMap)."""

    def __init__(self, kind: Kind, message: str, label: str = "", tiles=None):
        super().__init__(f"case {label}: {message}" if label else message, pytrace=False)
        self.kind, self.text, self.label, self.tiles = kind, message, label, tiles


def fail(kind: Kind, message: str, label: str = "", tiles=None) -> typing.NoReturn:
    raise CaseFailed(kind, message, label, tiles)


def not_applicable(why: str):
    """Leave out a case that does not apply to this file (a probe of a helper it does not
    have): it is reported not run, neither passed nor GPU-only, and the check's verdict rests
    on its other cases."""
    pytest.skip(NOT_RUN + why)


def needs_bf16():
    """Mark a bf16 case: it runs on a GPU of sm_80 (Ampere) or newer, where Triton has bf16
    (its own tests skip bf16 below that: check_type_supported in test_core.py). The T4 of a
    free notebook is sm_75: there the case is skipped, like a GPU-only case on the CPU. The
    interpreter has no bf16: there the call is recorded and its kernels compiled for sm_90,
    and the case then skipped (drills.judge.testing.case.watch)."""
    if not runtime.current().is_gpu:
        return pytest.mark.skipif(False, reason="recorded and compiled, not run")
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


def _lock_file(name: str) -> int:
    """A lock that the drills graded at once on this machine share (a grade's parallel suites,
    and other grades of this user's), in a folder of this user's alone in the judge's triton
    cache, which the grader checked it can write before grading: never a path in a shared
    folder, where another user could have left a link or a file of their own, and not the
    checkout, which may be read-only."""
    folder = gpu_compile.own_folder(Path(gpu_compile.judge_cache()) / "drills-locks")
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    return os.open(folder / name, flags, 0o600)


# Every drill's case on a GPU holds the memory lock shared, and a case that needs gigabytes
# holds it alone: it waits for the cases under way in every drill to end, and the cases that
# come after wait for it, so that its tensors never take the memory of another drill's case
# mid-case (right kernels were told "out of memory" when suites graded at once). A big case
# waiting for the lock holds the turnstile, which new cases pass on their way to the lock, so
# that a stream of small cases cannot keep it waiting.
_MEMORY_LOCK = "big-gpu-memory.lock"
_TURNSTILE = "big-gpu-memory.turnstile"
# flock's locks belong to an open file, which a fork shares with its parent: each process opens
# its own, by (pid, name), or a child's unlock would drop its parent's share
_opened: dict[tuple[int, str], int] = {}
_in_case = False  # this process holds a share (gpu_case)
# A judge's shared pool keeps every block it ever held (remote.give_back_shared_memory), so a
# worker that once ran a case of gigabytes keeps them while it runs small ones. Past this much,
# a case ends by giving its pool back: with 12 suites graded at once on one H100, the GPU's
# memory filled up (79.8 of 80 GB) and three controls failed (not proved to be memory).
HELD_AT_MOST = 2 * 2**30


def _lock(name: str) -> int:
    key = (os.getpid(), name)
    if key not in _opened:
        _opened[key] = _lock_file(name)
    return _opened[key]


@contextlib.contextmanager
def gpu_case() -> Iterator[None]:
    """The share of the GPU's memory lock that a drill's case on a GPU holds while it runs.
    Only a drill's own cases take one (the plugin's call hook): a test that runs a grade in
    its own process would hold a share its grade's big case waits for, for ever."""
    import fcntl

    global _in_case
    lock, turnstile = _lock(_MEMORY_LOCK), _lock(_TURNSTILE)
    fcntl.flock(turnstile, fcntl.LOCK_EX)
    fcntl.flock(lock, fcntl.LOCK_SH)
    fcntl.flock(turnstile, fcntl.LOCK_UN)
    _in_case = True
    try:
        yield
    finally:
        _in_case = False
        fcntl.flock(lock, fcntl.LOCK_UN)
        if torch.cuda.is_initialized() and torch.cuda.memory_reserved() > HELD_AT_MOST:
            gc.collect()
            remote.give_back_shared_memory()


@contextlib.contextmanager
def _alone_on_the_gpu() -> Iterator[None]:
    """The memory lock for this process alone, inside a case's share (gpu_case) or not; the
    share is taken again afterwards."""
    import fcntl

    lock, turnstile = _lock(_MEMORY_LOCK), _lock(_TURNSTILE)
    # give this case's share up first: two big cases each waiting on the other's would deadlock
    fcntl.flock(lock, fcntl.LOCK_UN)
    fcntl.flock(turnstile, fcntl.LOCK_EX)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
    finally:
        fcntl.flock(turnstile, fcntl.LOCK_UN)
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_SH if _in_case else fcntl.LOCK_UN)


@contextlib.contextmanager
def big_gpu_memory(needed_bytes: float) -> Iterator[None]:
    """Run a case that needs a large share of GPU memory while no other case runs (the suites
    run in parallel), skipping it when the memory is not there, and hand it back afterwards."""
    import traceback

    with _alone_on_the_gpu():
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
                # the judge's own allocations: the free memory it saw is held by the other
                # drills' processes (their caching allocators keep what they freed)
                pytest.skip(
                    f"needs {needed_bytes / 1e9:.0f} GB of free GPU memory, which the drills "
                    "graded beside this one hold"
                )
        except BaseException as e:
            # a failing case's traceback keeps its frames, and their tensors, alive
            traceback.clear_frames(e.__traceback__)
            raise
        finally:
            gc.collect()
            remote.give_back_shared_memory()
