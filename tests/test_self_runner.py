"""The repo's own tests of what the runner changes in triton: it writes launches down instead of
running them, and its autotuner times nothing and keeps the first config; and of how the judge
asks for the interpreter before torch brings triton in."""

import json
import os
import subprocess
import sys
import tempfile

import pytest
import torch

from drills import catalog, runtime

# A runner's process as far as launches go, on the interpreter: three configs, each with a
# pre_hook that says it ran; the kernel would triple x if it ran.
AUTOTUNE_ROUND = """
import json, sys
sys.path.insert(0, "drills")
import runner
runner.prepare_triton()
import torch, triton, triton.language as tl

ran = []
def hook(name):
    def pre_hook(nargs):
        ran.append(name)
    return pre_hook

configs = [triton.Config({"SCALE": s}, pre_hook=hook(name)) for name, s in zip("ABC", (1, 2, 3))]

@triton.autotune(configs=configs, key=["n"])
@triton.jit
def scale(x_ptr, n, SCALE: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)

x = torch.ones(16)
trace = runner.Trace({"b1": x})
runner.record_launches(lambda: trace)
with runner.tracing(trace):
    scale[(1,)](x, 16)
print(json.dumps({"ran": ran, "x": x[0].item(), "steps": trace.steps}))
"""


def runner_script(script: str, interpret: bool = True) -> dict:
    """What `script`, a runner's process as far as it goes, prints last as JSON; with
    `interpret`, on the interpreter."""
    env = {"PATH": "/usr/bin:/bin"} | ({"TRITON_INTERPRET": "1"} if interpret else {})
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=catalog.ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.split("\n")[-2])


def test_launches_are_recorded_not_run_and_the_first_config_is_kept_untimed():
    seen = runner_script(AUTOTUNE_ROUND)
    # no config was run to time it: only the chosen one's pre_hook, before its launch
    assert seen["ran"] == ["A"]
    assert seen["x"] == 1.0  # the kernel did not run
    [launch] = seen["steps"]
    assert launch["kernel"] == "scale" and launch["grid"] == [1]
    assert launch["args"]["SCALE"] == 1 and launch["args"]["n"] == 16
    assert launch["args"]["x_ptr"]["ref"] == "b1"


# wrap_triton's launch on a GPU: torch's triton_kernel_wrapper_mutation operator, which reaches
# the tracer as a higher-order operator (the interpreter's kernels skip it, so it is called here
# as torch calls it); and torch.cond's operator, whose branches the tracer cannot see
HIGHER_ORDER = """
import json, sys
sys.path.insert(0, "drills")
import runner
runner.prepare_triton()
import torch, triton, triton.language as tl
from torch._higher_order_ops.triton_kernel_wrap import (
    kernel_side_table, triton_kernel_wrapper_mutation)

@triton.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

x = torch.ones(16)
trace = runner.Trace({"b1": x})
runner.record_launches(lambda: trace)
with runner.tracing(trace):
    triton_kernel_wrapper_mutation(
        kernel_idx=kernel_side_table.add_kernel(double),
        constant_args_idx=kernel_side_table.add_constant_args({"BLOCK": 16}),
        grid=[(1, 1, 1)], tma_descriptor_metadata={}, kwargs={"x_ptr": x, "n": 16})
try:  # as the tracer is asked to run it (torch.cond itself would compile its branches first)
    runner.higher_order(torch.ops.higher_order.cond, (x.sum() > 0, abs, abs, (x,)), {})
    refused = None
except NotImplementedError as e:
    refused = str(e)
print(json.dumps({"steps": trace.steps, "refused": refused}))
"""


def test_a_launch_through_wrap_triton_is_recorded_and_other_higher_order_ops_refused():
    seen = runner_script(HIGHER_ORDER)
    launches = [s for s in seen["steps"] if s["step"] == "launch"]
    assert [(s["kernel"], s["grid"]) for s in launches] == [("double", [1, 1, 1])]
    assert launches[0]["args"]["x_ptr"]["ref"] == "b1" and launches[0]["args"]["BLOCK"] == 16
    assert "higher-order operator cond" in seen["refused"]


# Tensors a call makes from Python values, as a grouped GEMM's tables of sizes and pointers
FROM_VALUES = """
import json, sys
sys.path.insert(0, "drills")
import runner, torch
x = torch.zeros(8)
trace = runner.Trace({"b1": x})
with runner.tracing(trace):
    nothing = torch.empty(0)  # no address's: its data_ptr() is 0, and a 0 is no pointer
    pointers = torch.tensor([x.data_ptr(), x[2:].data_ptr(), 7])
    sizes = torch.tensor([3, 5], dtype=torch.int32)
    ramp = torch.arange(4)
    starts = torch.cumsum(sizes, 0) * 2  # computed from values alone: values too
    starts += 1
    scaled = x * 2  # from a stand-in: host computation
    too_many = torch.arange(runner.MAX_VALUES + 1)
print(json.dumps({"steps": trace.steps, "computed": trace.computed}))
"""


def test_tensors_made_from_python_values_are_sent_by_value_with_addresses_as_places():
    seen = runner_script(FROM_VALUES, interpret=False)
    sent = [(s["into"]["ref"], s["values"]) for s in seen["steps"] if s["step"] == "values"]
    assert sent[:3] == [
        ("t2", [{"ref": "b1", "byte": 0}, {"ref": "b1", "byte": 8}, 7]),
        ("t3", [3, 5]),
        ("t4", [0, 1, 2, 3]),
    ]
    assert [values for _, values in sent[3:]][-1] == [7, 17]  # (3, 8) * 2 + 1
    # past the limit, what it holds is unknown to the judge, as host computation is
    assert seen["steps"][-1]["step"] == "host_wrote"
    assert seen["computed"] == ["mul", "arange"]


def test_the_executor_puts_its_own_addresses_where_the_runner_sent_places():
    from drills.judge.executor import Refused, Storages

    storages = Storages({"b1": torch.zeros(8)}, "cpu")
    storages.allocate("t1", 24)
    into = {"ref": "t1", "dtype": "int64", "shape": [3], "stride": [1], "offset": 0}
    step = {"into": into, "values": [{"ref": "b1", "byte": 8}, 7, -1]}
    base = storages.storages["b1"].data_ptr()
    assert storages.values(step).tolist() == [base + 8, 7, -1]
    for wrong in ([{"ref": "b2", "byte": 0}, 7, -1], [{"ref": "b1", "byte": 33}, 7, -1], [1, 2]):
        with pytest.raises(Refused):
            storages.values({"into": into, "values": wrong})


def test_the_judge_interprets_triton_helpers_where_no_gpu_can_be():
    # pytest loads the plugin before any test module; torch, which the plugin imports, brings
    # in triton.language, and its tl.cdiv is interpreted only if TRITON_INTERPRET came first
    if not runtime.no_cuda_driver():
        pytest.skip("this machine has a CUDA driver: the GPU may be used")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import drills.judge.plugin, triton.language as tl; print(type(tl.cdiv).__name__)",
        ],
        cwd=catalog.ROOT,
        env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["InterpretedFunction"]


SEED_OF_A_JUDGE = "from drills.judge import testing; print(testing.generator(3).initial_seed())"


@pytest.mark.slow
def test_each_judge_draws_its_inputs_from_a_fresh_seed_unless_told_one():
    def seed(**env) -> int:
        done = subprocess.run(
            [sys.executable, "-c", SEED_OF_A_JUDGE],
            cwd=catalog.ROOT,
            env={k: v for k, v in os.environ.items() if k != "DRILLS_SEED"} | env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return int(done.stdout.split()[-1])

    assert seed() != seed()  # a file cannot know the inputs of the next grade
    assert seed(DRILLS_SEED="7") == seed(DRILLS_SEED="7") == 7 * 1000 + 3


# A process once it has been made unable to start another, as every confined one is.
NO_NEW_PROCESSES = """
import json, os, subprocess, sys, threading
from drills import confine
seen = {"filter": confine.forbid_new_processes()}
for name, start in [
    ("fork", os.fork),
    ("subprocess", lambda: subprocess.run(["true"])),
    ("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {})),
]:
    try:
        if start() == 0:
            os._exit(0)
        seen[name] = "started"
    except OSError as e:
        seen[name] = e.errno
thread = threading.Thread(target=lambda: seen.setdefault("thread", "ran"))
thread.start()
thread.join()
print(json.dumps(seen))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the filter is Linux's seccomp")
def test_the_learners_code_can_start_threads_but_no_process():
    """Nothing a learner's code starts can outlive its runner, namespaces or not: it cannot
    fork, spawn or exec (EPERM), and torch's threads still start."""
    done = subprocess.run(
        [sys.executable, "-c", NO_NEW_PROCESSES],
        cwd=catalog.ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert seen == {"filter": True, "fork": 1, "subprocess": 1, "posix_spawn": 1, "thread": "ran"}


def test_a_runner_sees_the_judges_triton_cache_empty_and_read_only(tmp_path, monkeypatch):
    """A kernel binary planted in the judge's cache would be what the judge runs: the runner's
    mount namespace covers it, and the runner's own cache is elsewhere."""
    import socket

    from drills.judge import forks, gpu_compile, remote

    judge_cache = tmp_path / "judge-cache"
    judge_cache.mkdir()
    (judge_cache / "compiled").write_text("a kernel the judge compiled")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(judge_cache))
    # the probe's folder is its scratch, as a runner's is: the cache inside it stays covered
    confinement = forks.confinement(hide=gpu_compile.judge_cache(), writable=[str(tmp_path)])
    if confinement is None:
        pytest.skip("no namespaces on this machine: the fallback does not hide the cache")
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, sys\n"
        f"cache = {str(judge_cache)!r}\n"
        "print(os.listdir(cache))\n"
        "try:\n"
        "    open(os.path.join(cache, 'planted'), 'w')\n"
        "except OSError:\n"
        "    print('refused')\n"
    )
    job = {"program": str(probe), "args": [], "cwd": str(tmp_path), "env": {}}
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with tempfile.TemporaryFile() as log, ours, theirs:
        forked = forks.spawn(job | {"confinement": confinement}, theirs.fileno(), log.fileno())
        status = forked.wait(timeout=60)
        log.seek(0)
        printed = log.read().decode()
        assert status == 0, printed
        assert printed.split("\n")[:2] == ["[]", "refused"]
    assert sorted(p.name for p in judge_cache.iterdir()) == ["compiled"]
    runner_env = remote.runner_environment(tmp_path / "runner", remote.Sandbox())
    assert runner_env["TRITON_CACHE_DIR"] == str(tmp_path / "runner" / "triton-cache")


def test_a_crash_is_reported_with_what_the_process_printed_and_advice_last():
    """glibc's own words on a heap it finds corrupted are evidence: the report takes a
    failure's last line as its advice, so the advice comes after them."""
    import types

    from drills.failures import Failure, Kind
    from drills.judge.remote import ChildProcess

    crashed = types.SimpleNamespace(
        process=types.SimpleNamespace(wait=lambda timeout: -6),
        _output_tail=lambda: "corrupted double-linked list",
        stop=lambda: None,
    )
    message = ChildProcess._death(crashed)
    assert message.startswith("the process aborted (SIGABRT).\nIt printed, last:\n"), message
    failure = Failure.from_message(Kind.CRASHED, message)
    assert failure.advice.startswith("This is usually memory corrupted earlier")
    assert "corrupted double-linked list" in failure.details


# A child that says hello, then dies before reading the request the judge sends it
DIES_WITH_THE_REQUEST_UNREAD = (
    "import json, os, socket, sys, time; "
    "s = socket.socket(fileno=int(sys.argv[1])); "
    "s.send(json.dumps({'ok': True, 'ready': True}).encode()); "
    "time.sleep(0.5); os._exit(7)"
)


def test_a_child_that_dies_mid_request_is_a_crash_of_the_learners_code():
    import subprocess as sp
    import time as clock

    from drills.judge.remote import ChildProcess, LearnerError

    class DiesMidRequest(ChildProcess):
        role = "runner"

        def popen(self, fd: int) -> sp.Popen:
            command = [sys.executable, "-c", DIES_WITH_THE_REQUEST_UNREAD, str(fd)]
            return sp.Popen(command, pass_fds=[fd], stdout=self.log, stderr=sp.STDOUT)

    child = DiesMidRequest(clock.time() + 60)
    # the request lands unread, and the judge's read is refused (ECONNRESET): it used to reach
    # the learner as "the grader failed on this case: ConnectionResetError"
    with pytest.raises(LearnerError) as raised:
        child.send({"op": "call"}, [], 30)
    assert raised.value.kind == "crashed"
    assert "exited with status 7" in str(raised.value)


def test_an_executor_that_dies_before_its_hello_is_the_judges_own_failure():
    """The executor says hello before it reads anything of the learner's: a death before that
    (its own module broken, say) is the grader's failure, not a crash of the learner's file."""
    import subprocess as sp
    import time as clock

    from drills.judge.remote import ExecutorProcess, JudgesOwnFailure, Sandbox

    class DiesStarting(ExecutorProcess):
        def popen(self, fd: int) -> sp.Popen:
            command = [sys.executable, "-c", "raise ImportError('a broken install')"]
            return sp.Popen(command, stdout=self.log, stderr=sp.STDOUT)

    executor = DiesStarting("t1_add.py", {"module": ""}, Sandbox(), clock.time() + 60)
    with pytest.raises(
        JudgesOwnFailure, match="(?s)executor died while starting.*a broken install"
    ):
        executor.start_once()


def test_the_interpreter_skips_only_the_overflow_checks_no_assert_reads():
    import dataclasses

    from triton.runtime.interpreter import InterpreterBuilder

    from drills.judge.executor import skip_unasserted_overflow_checks

    stock = InterpreterBuilder()
    # triton's default, on every version the drills support: without it there is nothing to skip
    assert stock.options.sanitize_overflow and not stock.options.debug
    skip_unasserted_overflow_checks(stock)
    assert not stock.options.sanitize_overflow
    debugging = InterpreterBuilder()
    debugging.options = dataclasses.replace(debugging.options, debug=True)
    skip_unasserted_overflow_checks(debugging)
    assert debugging.options.sanitize_overflow  # where device_assert acts, the checks stay


REDUCTIONS = """
import triton
import triton.language as tl


@triton.jit
def nan_max(a, b):  # inductor's maximum: a NaN wins
    return tl.where((a > b) | (a != a), a, b)


@triton.jit
def first_largest(a, i, b, j):  # (value, index): ties go left, so order matters
    keep = (a > b) | ((a == b) & (i < j))
    return tl.where(keep, a, b), tl.where(keep, i, j)


@triton.jit
def larger_by_if(a, b):  # control flow on the values: only one element at a time
    if a > b:
        return a
    return b


@triton.jit
def reduce_kernel(x_ptr, out_ptr, idx_ptr, WHICH: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    if WHICH == 0:
        tl.store(out_ptr + tl.arange(0, R), tl.reduce(x, 1, nan_max))
    elif WHICH == 1:
        i = tl.broadcast_to(tl.arange(0, R)[:, None], (R, C))
        best, at = tl.reduce((x, i), 0, first_largest)
        tl.store(out_ptr + tl.arange(0, C), best)
        tl.store(idx_ptr + tl.arange(0, C), at)
    elif WHICH == 2:
        tl.store(out_ptr + tl.arange(0, 1), tl.reshape(tl.reduce(x, None, nan_max, keep_dims=True), (1,)))
    else:
        tl.store(out_ptr + tl.arange(0, R), tl.reduce(x, 1, larger_by_if))
"""


@pytest.mark.skipif(runtime.current().is_gpu, reason="the interpreter's reductions")
def test_a_custom_reduction_by_halves_gives_what_one_element_at_a_time_gives(tmp_path, monkeypatch):
    import torch
    from triton.runtime import interpreter

    from drills.judge.executor import by_halves_else
    from drills.loading import load

    (tmp_path / "reductions.py").write_text(REDUCTIONS)
    module = load(tmp_path / "reductions.py")
    x = torch.randint(0, 5, (8, 16)).float()  # ties, so that the index says which one won
    x[3, 7] = float("nan")

    def run(which: int) -> tuple[torch.Tensor, torch.Tensor]:
        out, idx = torch.zeros(16), torch.zeros(16, dtype=torch.int32)
        module.reduce_kernel[(1,)](x, out, idx, WHICH=which, R=8, C=16)
        return out, idx

    by_elements = [run(which) for which in range(4)]
    calls = []
    original = interpreter.ReduceOps.generic_reduce

    def counted(op, inputs):
        calls.append(op)
        return original(op, inputs)

    monkeypatch.setattr(interpreter.ReduceOps, "generic_reduce", by_halves_else(counted))
    for which, (out, idx) in enumerate(by_elements):
        calls.clear()
        halved = run(which)
        torch.testing.assert_close(halved[0], out, equal_nan=True, msg=f"reduction {which}")
        assert torch.equal(halved[1], idx), f"reduction {which}: {halved[1]} {idx}"
        # the `if` of larger_by_if cannot take blocks: the one-at-a-time reduction ran it
        assert bool(calls) is (which == 3), which
