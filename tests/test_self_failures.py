"""The judge's verdicts, kind by kind, on hand-made observations: what the judge's buffers hold
after a call and what the runner's record says of it, without running any learner code. Each
case names the kind of mistake (drills.failures.Kind) that the report, the exports and the
Chinese edition are chosen by, and the words that say it."""

import contextlib
import time
from types import SimpleNamespace

import pytest
import torch

from drills import chinese
from drills.failures import Kind
from drills.judge.remote import buffer_ref
from drills.judge.testing import (
    TOLERANCES,
    Case,
    Guarded,
    Hints,
    Launch,
    Returned,
    Watched,
    failure,
)

N = 256
HINTS = Hints(outside="Mask the store.", unwritten="Cover every element.", nan="Mask the loads.")


def observed(
    write=None, *, launches=1, computed=(), reads=None, num_warps=4, change_x=False, returns="out"
):
    """A case of adding two vectors of N elements on the CPU, the call already made: `write`
    (out, expected) puts what the kernels stored into the judge's output; the record has
    `launches` launches given `out`, the torch operations `computed`, the loads outside the
    inputs `reads`, and the call returned `returns`. What failure() says of it: (kind,
    message) or None."""
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(N, generator=gen), torch.randn(N, generator=gen)
    inputs = {"x": Guarded.holding(x), "y": Guarded.holding(y)}
    out = Guarded((N,), torch.float32, output=True)
    before = {name: g.snapshot() for name, g in inputs.items()}
    case = Case(
        name=f"n={N}",
        fn=SimpleNamespace(code=SimpleNamespace(source=None)),
        inputs=inputs,
        out=out,
        expected=x + y,
        tol=TOLERANCES[torch.float32],
        hints=HINTS,
    )
    if write:
        write(out, x + y)
    if change_x:
        inputs["x"].tensor[3] += 1
    given = {"x": {"tensor": "fp32"}, "out": {"tensor": "fp32", "ref": buffer_ref(out.tensor)}}
    step = {"grid": [N // 64], "args": given | {"num_warps": num_warps}, "kernel": "add_kernel"}
    returned = inputs["x"].tensor if returns == "x" else out.tensor
    spec = {"shape": [N], "stride": [1], "offset": returned.storage_offset()}
    watched = Watched(
        Returned("Tensor", spec | {"ref": buffer_ref(returned)}),
        [Launch.from_step(step) for _ in range(launches)],
        [],
        list(computed),
        reads or {},
        {name: len(offsets) for name, offsets in (reads or {}).items()},
        None,
    )
    return failure(case, watched, before)


def right(out, expected):
    out.tensor.copy_(expected)


CASES = {
    Kind.NO_LAUNCH: (dict(launches=0), "no Triton kernel was launched"),
    Kind.HOST_COMPUTED: (dict(launches=1, computed=["aten.add"]), "came from host code"),
    Kind.NEVER_WRITTEN: (
        dict(write=lambda out, e: out.tensor[: N // 2].copy_(e[: N // 2])),
        "were never written",
    ),
    Kind.WRONG_VALUES: (dict(write=lambda out, e: out.tensor.copy_(e + 1)), "wrong values"),
    Kind.WROTE_OUTSIDE: (
        dict(write=lambda out, e: (right(out, e), out.buffer.__setitem__(-1, 0.0))),
        "outside the output",
    ),
    Kind.CHANGED_INPUT: (dict(write=right, change_x=True), "changed 1 elements of the input `x`"),
    Kind.READ_OUTSIDE: (dict(write=right, reads={"x": [N + 2]}), "outside `x`"),
    Kind.READ_BEFORE_START: (dict(write=right, reads={"x": [-3]}), "before the first element"),
    Kind.GPU_REFUSES: (dict(write=right, num_warps=3), "num_warps=3"),
    Kind.WRONG_RETURN: (dict(write=right, returns="x"), "must write into it and return it"),
}


@pytest.mark.parametrize("kind", CASES, ids=str)
def test_each_kind_of_mistake_is_named_where_the_judge_sees_it(kind):
    seen, words = CASES[kind]
    found = observed(**seen)
    assert found is not None and found[0] == kind, found
    assert words in found[1], found[1]
    # and the Chinese edition has words of its own for it
    assert chinese.words_for(kind) is not chinese.GENERAL


def test_a_right_call_has_no_verdict():
    assert observed(write=right) is None


def test_every_kind_has_chinese_words():
    assert set(chinese.WORDS) == set(Kind)


def test_a_big_case_that_finds_the_gpu_memory_taken_is_skipped_not_the_graders_failure(
    monkeypatch, tmp_path
):
    """Drills graded at once share the GPU: memory free when a big case checked can be gone
    when it allocates. That case is skipped, as it is when the memory was never free; it is no
    verdict on the learner's file, and no failure of the grader's."""
    from drills.judge.testing import big_gpu_memory

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # the lock file's folder is in it
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (100e9, 100e9))
    taken = pytest.raises(
        pytest.skip.Exception, match="which the drills graded beside this one hold"
    )
    with taken, big_gpu_memory(48e9):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")


def test_a_case_that_finds_no_gpu_memory_for_the_judge_says_so_and_does_not_pass(monkeypatch):
    """A case whose own tensors the judge cannot allocate (an H100 shared by 10 grades, one
    process holding 52 GiB): the memory is held elsewhere, which the message says, with what was
    free; the check still cannot pass, or a file whose host code fills the GPU would pass it."""
    from types import SimpleNamespace

    from drills.failures import Stop
    from drills.judge import plugin

    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (77 * 2**20, 79.18 * 2**30))
    err = torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 128.00 MiB.")
    stop, message, failure = plugin._classify(SimpleNamespace(value=err), "4096x4096")
    assert (stop, failure.kind) == (Stop.FAILED, Kind.GPU_MEMORY)
    assert "(0.1 of 79.2 GiB free after it tried)" in message, message
    assert "this check cannot pass" in message and "grader failed" not in message
    assert chinese.words_for(Kind.GPU_MEMORY) is not chinese.GENERAL
    # the same in a launch, which torch raises as a CUDA error (the executor's, on that H100)
    from drills.judge import remote

    error = {"type": "AcceleratorError", "message": "CUDA error: out of memory\n", "fatal": True}
    executor = SimpleNamespace(shown_as="t1_add.py")
    _, message, kind = remote.ExecutorProcess._classify(executor, error)
    assert kind == Kind.CUDA_FAULT and "nvidia-smi lists them" in message, message


def _take_turns(name, steps, log):
    """A process of its own, forked after the parent opened the locks: step through `steps`,
    logging what it reached and when (a queue's puts from several processes may arrive out of
    the order they were made in: each is sent by a thread of its own)."""
    from drills.judge.testing import suite

    with suite.gpu_case():
        log.put((time.monotonic(), f"{name} case"))
        if "together" in steps:  # each holds its share before either asks for the lock alone
            steps["together"].wait(10)
        if "big" in steps:
            with suite._alone_on_the_gpu():
                log.put((time.monotonic(), f"{name} alone"))
        if "hold" in steps:
            steps["hold"].wait(10)


def _reached(log, n: int) -> list[str]:
    """The next n steps the processes logged, in the order they reached them."""
    return [what for _, what in sorted(log.get(timeout=10) for _ in range(n))]


def _fork_taking_turns(name, steps, log):
    import multiprocessing

    p = multiprocessing.get_context("fork").Process(
        target=_take_turns, args=(name, steps, log), daemon=True
    )  # daemon: a case left waiting by a broken lock must not keep the test run waiting too
    p.start()
    return p


def _held(path) -> bool:
    """Whether another process holds a flock on the file at `path`."""
    import fcntl
    import os

    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # and with it the lock this probe may have taken
    return False


def _comes_to_be(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.fixture
def locks_opened_here(monkeypatch, tmp_path):
    """The lock files in a triton cache of the test's, opened by this process before it forks
    the cases: each child must open its own, or its unlock drops what another holds."""
    from drills.judge.testing import suite

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(suite, "_opened", {})
    with suite.gpu_case():
        pass
    assert (tmp_path / "drills-locks").is_dir()
    return tmp_path


def test_a_big_gpu_case_runs_while_no_other_case_does_and_new_cases_wait_for_it(
    locks_opened_here,
):
    """A case that needs gigabytes waits for the cases under way (one holds on here) and runs
    before a case that came after it: its tensors never take the memory a case of another drill
    is using, and a stream of small cases cannot keep it waiting."""
    import multiprocessing
    import queue

    fork = multiprocessing.get_context("fork")
    log, release = fork.Queue(), fork.Event()
    under_way = _fork_taking_turns("under way", {"hold": release}, log)
    assert _reached(log, 1) == ["under way case"]
    big = _fork_taking_turns("big", {"big": True}, log)
    assert _reached(log, 1) == ["big case"]
    # the later case starts once the big one holds the turnstile, waiting for the lock alone
    turnstile = locks_opened_here / "drills-locks" / "big-gpu-memory.turnstile"
    assert _comes_to_be(lambda: _held(turnstile)), "the big case never reached the turnstile"
    later = _fork_taking_turns("later", {}, log)
    with pytest.raises(queue.Empty):  # both wait on the case under way
        log.get(timeout=1)
    release.set()
    assert _reached(log, 2) == ["big alone", "later case"]
    for p in (under_way, big, later):
        p.join(10)
        assert p.exitcode == 0


def test_two_big_gpu_cases_at_once_take_turns_rather_than_wait_on_each_other(locks_opened_here):
    """Two big cases whose shares are both held when each asks for the lock alone: each gives
    its share up before it waits, so one runs, then the other."""
    import multiprocessing

    fork = multiprocessing.get_context("fork")
    log, together = fork.Queue(), fork.Barrier(2)
    steps = {"big": True, "together": together}
    bigs = [_fork_taking_turns(name, steps, log) for name in ("first", "second")]
    reached = sorted(_reached(log, 4))
    assert reached == ["first alone", "first case", "second alone", "second case"]
    for p in bigs:
        p.join(10)
        assert p.exitcode == 0


def test_only_a_drills_own_cases_take_a_share_of_the_gpu_memory_lock(monkeypatch):
    """The repository's own tests load the judge's plugin too, and some run a grade in a
    process of its own: a share held by such a test would keep its grade's big case waiting
    for ever (an H100 run of the controls deadlocked so)."""
    from drills import runtime
    from drills.judge import plugin, testing

    def item(marker):
        return SimpleNamespace(get_closest_marker=lambda name: marker)

    taken = []

    @contextlib.contextmanager
    def share():
        taken.append(True)
        yield

    monkeypatch.setattr(runtime, "current", lambda: SimpleNamespace(is_gpu=True))
    monkeypatch.setattr(testing, "gpu_case", share)
    for case in (item(None), item(SimpleNamespace(kwargs={"id": "tail"}))):
        wrapper = plugin.pytest_runtest_call(case)
        next(wrapper)
        with contextlib.suppress(StopIteration):
            wrapper.send(None)
    assert taken == [True]


def test_a_big_gpu_case_gives_the_shared_buffers_memory_back_when_it_ends(monkeypatch, tmp_path):
    """The executor's buffers come from a pool of their own, and a live pool keeps every block
    it held through torch.cuda.empty_cache (an H100 kept 8 GiB so): a big case drops the pool
    and collects what the executor let go of, or its gigabytes stay with this judge until the
    drill ends, and a drill graded beside it finds no memory for its CUDA context."""
    from drills.judge import remote
    from drills.judge.testing import big_gpu_memory

    called = []
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # the lock file's folder is in it
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda: (100e9, 100e9))
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "ipc_collect", lambda: called.append("ipc_collect"))
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: called.append("empty_cache"))
    monkeypatch.setattr(remote, "_pools", {"cuda:0": object()})
    with big_gpu_memory(48e9):
        pass
    assert remote._pools == {}
    assert called == ["ipc_collect", "empty_cache"]


@pytest.mark.parametrize("reserved", [2 * 2**30, 2 * 2**30 + 1])
def test_a_case_that_ends_holding_gigabytes_gives_them_back(monkeypatch, tmp_path, reserved):
    """A judge's pool keeps the most it ever held: a case that ends with more than
    HELD_AT_MOST reserved gives the pool back, one below it keeps the pool for the next case."""
    from drills.judge import remote
    from drills.judge.testing import suite

    called = []
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))  # the lock file's folder is in it
    monkeypatch.setattr(torch.cuda, "is_initialized", lambda: True)
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda: reserved)
    monkeypatch.setattr(remote, "give_back_shared_memory", lambda: called.append("given"))
    with suite.gpu_case():
        pass
    assert called == (["given"] if reserved > suite.HELD_AT_MOST else [])


def test_a_folder_of_the_judges_made_by_another_judge_meanwhile_is_taken_as_it_is(
    monkeypatch, tmp_path
):
    """Judges of drills graded at once make their folders in the triton cache at once (the GPU
    memory lock's, drills-locks): one that another made between this one's look and its own
    making is this user's, and no error."""
    import os

    from drills.judge import gpu_compile

    folder = tmp_path / "drills-locks"
    lstat = os.lstat
    looks = []

    def made_meanwhile(path):
        if not looks:  # the first look finds nothing, then the other judge makes it
            looks.append(path)
            folder.mkdir(mode=0o700)
            raise FileNotFoundError(path)
        return lstat(path)

    monkeypatch.setattr(os, "lstat", made_meanwhile)
    assert gpu_compile.own_folder(folder) == folder and folder.is_dir()
    # and one that is not a folder of this user's is made again
    monkeypatch.setattr(os, "lstat", lstat)
    folder.rmdir()
    folder.symlink_to(tmp_path)
    assert gpu_compile.own_folder(folder) == folder and not folder.is_symlink()
