"""The repo's own tests of drills/judge/forks.py and drills/confine.py: what a process the judge
forks is, sees and holds."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest
import torch

from drills import catalog, runtime
from drills.judge import forks, gpu_compile, remote

# What a forked process reports of itself, as one JSON line.
WHAT_IT_SEES = """
import json, os, sys
seen = {"pid": os.getpid(), "argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}
seen["processes"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
root = ROOT
seen["hidden"] = {n: os.listdir(os.path.join(root, n)) for n in ("solutions", "tests", ".git")}
try:
    os.close(os.open(root, os.O_TMPFILE | os.O_WRONLY))  # a file with no name: none is left
    seen["writes"] = True
except OSError:
    seen["writes"] = False
with open("/proc/self/status") as f:
    seen["status"] = dict(line.split(":", 1) for line in f if line.startswith(("Cap", "NoNew")))
seen["status"] = {k: v.strip() for k, v in seen["status"].items()}
seen["drills_imported"] = any(n.split(".")[0] == "drills" for n in sys.modules)
try:
    import drills.catalog
    seen["repository_importable"] = True
except ImportError:
    seen["repository_importable"] = False
def is_open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False
seen["fds"] = [fd for fd in range(256) if is_open(fd)]
print(json.dumps(seen))
"""


def fork_and_report(tmp_path: Path, text: str, **job) -> tuple[int, str]:
    """Fork a process for `text` (a script's, unless the job names its program) through the
    fork server: its exit status and what it printed."""
    script = tmp_path / "program.py"
    script.write_text(text.replace("ROOT", repr(str(catalog.ROOT))))
    job = {"program": str(script), "args": ["{channel}", "second"], "cwd": str(tmp_path)} | job
    job.setdefault("env", {"PATH": os.environ["PATH"], "MARK": "given"})
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with tempfile.TemporaryFile() as log, ours, theirs:
        forked = forks.spawn(job, theirs.fileno(), log.fileno())
        status = forked.wait(timeout=120)
        log.seek(0)
        return status, log.read().decode()


def test_a_confined_fork_is_alone_read_only_and_without_capabilities(tmp_path):
    if not forks.namespaces():
        pytest.skip("no user namespaces on this machine")
    status, printed = fork_and_report(
        tmp_path,
        WHAT_IT_SEES,
        confinement={"root": str(catalog.ROOT), "hide": None, "writable": [str(tmp_path)]},
    )
    assert status == 0, printed
    seen = json.loads(printed)
    assert seen["pid"] == 1 and seen["processes"] == [1]  # no process of the grader's
    assert seen["hidden"] == {"solutions": [], "tests": [], ".git": []}
    assert seen["writes"] is False
    assert set(seen["status"].values()) == {"0000000000000000", "1"}  # no caps, no new privs
    # what the job said, and nothing of this process: its argv, cwd, environment
    assert seen["argv"] == ["3", "second"] and seen["cwd"] == str(tmp_path)
    assert seen["env"] == {"PATH": os.environ["PATH"], "MARK": "given"}
    assert seen["drills_imported"] is False and seen["repository_importable"] is False
    assert seen["fds"] == [0, 1, 2, 3]  # the channel is 3; no descriptor of the judge's


def test_without_namespaces_a_fork_still_holds_nothing_of_the_judges(tmp_path):
    status, printed = fork_and_report(tmp_path, WHAT_IT_SEES, confinement=None)
    assert status == 0, printed
    seen = json.loads(printed)
    assert seen["pid"] != 1 and seen["pid"] in seen["processes"]
    # no capability to use (as root, where a container allows no namespace), none to gain
    assert seen["status"]["CapEff"] == seen["status"]["CapPrm"] == "0000000000000000"
    assert seen["status"]["NoNewPrivs"] == "1"
    if os.geteuid() == 0:  # and as a user that holds none (--sandbox's), it still starts
        with tempfile.TemporaryDirectory() as folder:
            os.chmod(folder, 0o755)  # pytest's tmp_path is its owner's alone
            status, printed = fork_and_report(
                Path(folder), WHAT_IT_SEES, confinement=None, user=[65534, 65534]
            )
        assert status == 0 and json.loads(printed)["status"]["NoNewPrivs"] == "1", printed
    assert seen["env"] == {"PATH": os.environ["PATH"], "MARK": "given"}
    assert seen["drills_imported"] is False and seen["repository_importable"] is False
    assert seen["fds"] == [0, 1, 2, 3]


def test_a_fork_is_the_callers_child_and_ends_as_it_ended(tmp_path):
    """The judge waits for a forked runner and reads how it died, as for a child it exec'd."""
    status, printed = fork_and_report(tmp_path, "import os, signal; os.kill(os.getpid(), 11)")
    assert status == -signal.SIGSEGV, printed
    status, printed = fork_and_report(tmp_path, "import sys; print('bye'); sys.exit(7)")
    assert (status, printed) == (7, "bye\n")
    status, printed = fork_and_report(tmp_path, "raise ValueError('in the program')")
    assert status == 1 and "ValueError: in the program" in printed


# Work that a pool of threads would take: numpy's BLAS (tl.dot on the interpreter) and a torch
# reduction past the size at which torch splits one across its threads.
POOLED_WORK = """
import os, numpy, torch
numpy.ones((512, 512)) @ numpy.ones((512, 512))
torch.ones(1 << 22).sum()
print(len(os.listdir("/proc/self/task")))
"""


def test_on_the_interpreter_the_judges_processes_compute_on_one_thread(tmp_path):
    """The interpreter's tensors are small: a thread pool's workers would only spin between
    calls, on the cores the grade's other processes need."""
    if runtime.current().kind != "interpreter":
        pytest.skip("on a GPU the judge's processes keep torch's threads")
    if os.cpu_count() < 2:
        pytest.skip("one core: no pool would start a second thread")
    status, printed = fork_and_report(tmp_path, POOLED_WORK)
    assert (status, printed) == (0, "1\n"), printed
    # and so does a process that runs a suite itself (the judge's plugin, as here)
    assert torch.get_num_threads() == 1


def test_a_process_that_cannot_be_started_is_named(tmp_path):
    with pytest.raises(forks.CannotStart, match="could not be started: .*Error"):
        fork_and_report(tmp_path, "pass", user=[-7, -7])


# A learner's file that searches its runner's memory for the judge's environment: the variable
# below, which the test gives the grader, and DRILLS_SEED, which would give away the inputs.
SEARCHES_ITS_MEMORY = """
import re

PATTERN = re.compile(rb"(DRILLS_TEST_SECRET|DRILLS_SEED)=([0-9]{9})")


def memory_holds() -> set:
    found = set()
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as memory:
        for line in maps:
            fields = line.split()
            if not fields[1].startswith("rw") or (len(fields) > 5 and fields[5].startswith("/")):
                continue  # only what a process writes: heap, stack, anonymous memory
            start, end = (int(x, 16) for x in fields[0].split("-"))
            try:
                memory.seek(start)
                chunk = memory.read(end - start)
            except (OSError, ValueError, OverflowError):
                continue
            found.update(m.group(1).decode() for m in PATTERN.finditer(chunk))
    return found


raise RuntimeError(f"the runner's memory holds {sorted(memory_holds()) or 'neither'}")
"""


def test_a_runner_holds_nothing_of_the_judges_environment_in_its_memory(tmp_path):
    """The runner is forked from an image made before the judge read its environment: neither
    the grader's variables (an instructor's tokens) nor the inputs' seed are in its memory."""
    learner = tmp_path / "t1_add.py"
    learner.write_text(SEARCHES_ITS_MEMORY)
    graded = tmp_path / "graded.json"
    subprocess.run(
        [sys.executable, "grader.py", "t1", "--impl", str(tmp_path), "--json", str(graded)],
        cwd=catalog.ROOT,
        env=os.environ | {"DRILLS_TEST_SECRET": "271828182", "DRILLS_SEED": "314159265"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    [drill] = json.loads(graded.read_text())["drills"]
    assert "the runner's memory holds neither" in drill["message"] + json.dumps(drill["checks"])


def test_the_runners_environment_is_only_what_it_needs():
    kept = remote.runner_environment(Path("/tmp/x"), remote.Sandbox())
    assert set(kept) <= set(forks.KEPT) | {k for k in kept if k.startswith(forks.KEPT_PREFIXES)}
    assert kept["TRITON_CACHE_DIR"] == "/tmp/x/triton-cache"


def test_the_fork_server_ends_with_the_process_that_forked_it():
    code = textwrap.dedent(
        """
        import os
        from drills.judge import forks
        forks.start()
        print(forks.server_pids()[0], flush=True)
        os._exit(0)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=catalog.ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    server = Path(f"/proc/{int(done.stdout)}")
    deadline = time.monotonic() + 10
    while server.exists() and "zombie" not in _state(server) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not server.exists() or "zombie" in _state(server), "the server outlived its judge"


def _state(process: Path) -> str:
    try:
        return next(
            line for line in (process / "status").read_text().splitlines() if "State" in line
        )
    except (OSError, StopIteration):
        return "zombie"


def test_a_runner_is_the_first_to_go_when_memory_runs_out(tmp_path):
    """A runner is forked from a server the judge forked: it must have the judge's
    oom_score_adj of 1000, not the grader's, or memory running out kills the judge first."""
    (tmp_path / "t1_add.py").write_text(
        'raise RuntimeError("oom_score_adj " + open("/proc/self/oom_score_adj").read().strip())\n'
    )
    graded = tmp_path / "graded.json"

    def as_a_grader_started_by_a_person():
        Path("/proc/self/oom_score_adj").write_text("0")  # lowering it needs root

    if os.geteuid() != 0:
        pytest.skip("only root can give the grader back the oom_score_adj of 0 a shell has")
    subprocess.run(
        [sys.executable, "grader.py", "t1", "--impl", str(tmp_path), "--json", str(graded)],
        cwd=catalog.ROOT,
        preexec_fn=as_a_grader_started_by_a_person,
        capture_output=True,
        timeout=300,
        check=False,
    )
    [drill] = json.loads(graded.read_text())["drills"]
    assert "oom_score_adj 1000" in json.dumps(drill["checks"]) + drill["message"]


def test_a_hidden_folder_that_is_a_link_is_covered_where_it_points(tmp_path):
    """A checkout whose tests/ is a link to a folder elsewhere: a runner sees it empty (the
    covering used to fail, and with it every runner)."""
    if not forks.namespaces():
        pytest.skip("no user namespaces on this machine")
    root, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    (root / "solutions").mkdir(parents=True)
    (root / "solutions" / "t1_add.py").write_text("the answer")
    (elsewhere / "tests").mkdir(parents=True)
    (elsewhere / "tests" / "test_t1_add.py").write_text("the checks")
    (root / "tests").symlink_to(elsewhere / "tests")
    (root / ".git").write_text("gitdir: elsewhere")  # a worktree's .git is a file
    program = (
        "import os\n"
        f"root = {str(root)!r}\n"
        "print(sorted((n, os.listdir(os.path.join(root, n))) for n in ('solutions', 'tests')))\n"
        "print(repr(open(os.path.join(root, '.git')).read()))\n"
    )
    confinement = {"root": str(root), "writable": [str(tmp_path)]}
    status, printed = fork_and_report(tmp_path, program, confinement=confinement)
    assert status == 0, printed
    assert printed.split("\n")[:2] == ["[('solutions', []), ('tests', [])]", "''"]


def test_two_threads_asking_for_the_server_at_once_start_one(monkeypatch):
    """The grader's pool grades two drills at once: one server, one import of torch."""
    started = []

    class SlowToStart:  # as a server is: it answers once it has imported torch
        def __init__(self, fork_this_process: bool):
            started.append(self)
            time.sleep(0.3)

    monkeypatch.setattr(forks, "_server", [])
    monkeypatch.setattr(forks, "Server", SlowToStart)
    threads = [threading.Thread(target=forks._running) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(started) == 1


@pytest.mark.parametrize("chosen", ["the image's runtime", "the other runtime"])
def test_a_server_loading_for_the_runtime_not_chosen_is_ended(chosen, monkeypatch):
    """The grader starts the judge's image loading before it asks the driver for a GPU: where
    a driver loads but finds no device, the image loads for a GPU, the grader chooses the
    interpreter, and that server is ended (before its import of torch is done) for one that
    loads the interpreter's."""
    monkeypatch.setattr(forks, "_server", [])
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(runtime, "no_cuda_driver", lambda: False)  # a driver, as the grader sees
    forks.start_loading()
    server = forks._server[0]
    assert server.interpreting is False
    try:
        forks.loading_for(interpreting=chosen == "the other runtime")
        if chosen == "the other runtime":
            assert forks._server == [] and server.process.poll() is not None
        else:
            assert forks._server == [server] and server.process.poll() is None
    finally:
        server.stop()


def test_a_server_that_answers_too_late_is_not_asked_again(monkeypatch):
    """Its late answer would be read as the next request's, and every process after it would be
    someone else's: the judge is told the server stopped answering instead."""
    server = forks.Server.__new__(forks.Server)
    server.sock, slow_server = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.lock, server.broken = threading.Lock(), ""
    server._namespaces = True  # its first word, read
    monkeypatch.setattr(forks, "START_LIMIT", 0.2)
    with slow_server, tempfile.TemporaryFile() as log:
        with pytest.raises(forks.CannotStart, match="could not be asked"):
            server.spawn({"program": "-"}, log.fileno(), log.fileno())
        socket.recv_fds(slow_server, 16, 3)  # the request, answered only now
        with contextlib.suppress(BrokenPipeError):  # where the judge has hung up
            slow_server.send(b"0")
        with pytest.raises(forks.CannotStart, match="stopped answering: timed out"):
            server.spawn({"program": "-"}, log.fileno(), log.fileno())


# What a confined process can do outside its scratch, as one JSON line: every attempt must fail.
TRIES_TO_GET_OUT = """
import json, os, subprocess, sys, sysconfig
tried = {}
def writes(folder):
    try:
        os.close(os.open(folder, os.O_TMPFILE | os.O_WRONLY))  # a file with no name: none is left
        return True
    except OSError:
        return False
for name, folder in FOLDERS.items():
    tried["writes " + name] = writes(folder)
tried["sees another grade's copy"] = os.path.exists(ANOTHER_GRADE)
try:
    subprocess.run(["true"], check=True)
    tried["starts a process"] = True
except OSError:
    tried["starts a process"] = False
tried["reads the seed"] = "DRILLS_SEED" in os.environ
tried["writes its scratch"] = writes(SCRATCH)
euid = os.geteuid()
for line in open("/proc/self/uid_map"):  # who it is outside its namespace
    inside, outside, count = map(int, line.split())
    if inside <= euid < inside + count:
        tried["uid"] = outside + euid - inside
print(json.dumps(tried))
"""


def confined_processes(tmp_path: Path, sandbox: remote.Sandbox) -> dict:
    """Each process of a judge that runs text from a learner's file, as the judge starts it
    (with `sandbox`'s user, if any), running TRIES_TO_GET_OUT instead of its program: exit
    status and what it printed."""
    from drills.judge import gpu_compile

    another_grade = tmp_path / "grade-sources-another"
    another_grade.mkdir()
    (another_grade / "t1_add.py").write_text("# another grade's private copy\n")
    folders = {
        "the repository": str(catalog.ROOT),
        "Python's packages": sysconfig.get_paths()["purelib"],
        "the judge's triton cache": gpu_compile.judge_cache(),
        "Python's standard library": sysconfig.get_paths()["stdlib"],
        "the machine's root folder": "/",
    }

    def program(scratch: str) -> str:
        return (
            TRIES_TO_GET_OUT.replace("FOLDERS", repr(folders))
            .replace("ANOTHER_GRADE", repr(str(another_grade)))
            .replace("SCRATCH", repr(scratch))
        )

    seen = {}
    (tmp_path / "t1_add.py").write_text("")
    runner = remote.RunnerProcess(tmp_path / "t1_add.py", "t1_add.py", sandbox, time.time() + 60)
    runner_folder = runner.fresh_folder()
    executor = remote.ExecutorProcess("t1_add.py", {"module": ""}, sandbox, time.time() + 60)
    probes = tmp_path / "probes"  # where the executor finds the probe, read-only
    probes.mkdir(mode=0o755)
    for name, job, scratch in [
        ("runner", runner.job(runner_folder), str(runner_folder)),
        ("executor", executor.job(), "/tmp"),
    ]:
        script = (runner_folder if name == "runner" else probes) / f"{name}.py"
        script.write_text(program(scratch))
        job |= {"program": str(script), "module": False, "args": ["{channel}"]}
        if name == "executor":
            job["confinement"]["writable"].append(str(probes))
        seen[name] = fork_and_report(tmp_path, "", **job)
    runner.remove_folder()
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o755)
    if sandbox.user:
        os.chown(cache, *sandbox.user)
    confinement = forks.confinement(writable=[str(cache)])
    user = list(sandbox.user) if sandbox.user else None
    confined = (
        "from drills.judge import gpu_compile\n"
        f"gpu_compile.confine_this_process({confinement!r}, {user!r})\n" + program(str(cache))
    )
    done = subprocess.run(
        [sys.executable, "-c", confined],
        cwd=catalog.ROOT,
        env=gpu_compile.environment(str(tmp_path / "cache")),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seen["compiler"] = (done.returncode, done.stdout + done.stderr)
    return seen


@pytest.mark.parametrize("who", ["this user", "the run's user"])
def test_every_process_that_runs_learner_text_is_confined(who, monkeypatch):
    """The runner (host code), the executor (kernel bodies, on the interpreter) and the compile
    process (triton's code generator runs Python at compile time) each try to write outside
    their scratch, start a process, read the seed and see another grade's private copy; and
    under --sandbox (as root) each runs as the run's own user."""
    if not forks.namespaces() or runtime.current().is_gpu:
        pytest.skip("needs user namespaces, and the interpreter's executor")
    sandbox = remote.Sandbox()
    if who == "the run's user":
        if os.geteuid() != 0:
            pytest.skip("--sandbox runs as root")
        sandbox = remote.Sandbox(user=(0x70000000 + os.getpid() % 4096,) * 2)
    monkeypatch.setenv("DRILLS_SEED", "314159265")
    # a folder the run's user can reach, as --sandbox's are (pytest's are their owner's alone)
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        seen = confined_processes(Path(folder), sandbox)
    for name, (status, printed) in seen.items():
        assert status == 0, f"{name}: {printed[-3000:]}"
        tried = json.loads(printed.strip().splitlines()[-1])
        assert tried.pop("writes its scratch") is True, name  # the attempts below can succeed
        assert tried.pop("uid") == (sandbox.user[0] if sandbox.user else os.getuid()), name
        assert not any(tried.values()), f"{name}: {tried}"


def test_a_process_cache_starts_with_a_copy_of_the_judges_driver_helpers(tmp_path, monkeypatch):
    """A runner's or an executor's triton cache starts with the judge's build of triton's CUDA
    helper module: a copy, so that what the process writes there never reaches the judge's."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "judge"))
    built = Path(gpu_compile.driver_helpers()) / "0123abcd" / "cuda_utils.so"
    built.parent.mkdir(parents=True)
    built.write_bytes(b"the judge's build")
    cache = tmp_path / "runner" / "triton-cache"
    gpu_compile.with_driver_helpers(str(cache))
    copy = cache / "0123abcd" / "cuda_utils.so"
    assert copy.read_bytes() == b"the judge's build"
    copy.write_bytes(b"planted by the runner")
    assert built.read_bytes() == b"the judge's build"


def test_a_driver_helper_another_process_has_loaded_is_never_rewritten(tmp_path, monkeypatch):
    """The executors of one file's kernels share a cache: the copy the next one gets is a new
    file put in place, and the one an earlier executor has loaded stays as it was (rewritten
    under it, it crashed that executor)."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "judge"))
    built = Path(gpu_compile.driver_helpers()) / "0123abcd" / "cuda_utils.so"
    built.parent.mkdir(parents=True)
    built.write_bytes(b"the judge's build")
    cache = tmp_path / "executors-cache"
    gpu_compile.with_driver_helpers(str(cache))
    with open(cache / "0123abcd" / "cuda_utils.so", "rb") as loaded:  # as an executor has it
        gpu_compile.with_driver_helpers(str(cache))
        assert loaded.read() == b"the judge's build"
        assert os.fstat(loaded.fileno()).st_nlink == 0  # replaced, not rewritten
    assert [p.name for p in (cache / "0123abcd").iterdir()] == ["cuda_utils.so"]


def test_a_link_an_executor_planted_in_its_cache_is_replaced_not_written_through(
    tmp_path, monkeypatch
):
    """An executor writes its cache (and runs the learner's Python at compile time): a link it
    left where a key's folder goes is removed, and the copy goes into a folder of the judge's
    own; triton's half-written tmp.* folders are not copied."""
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "judge"))
    key = Path(gpu_compile.driver_helpers()) / "0123abcd"
    (key / "tmp.pid_7_1").mkdir(parents=True)
    (key / "cuda_utils.so").write_bytes(b"the judge's build")
    (key / "tmp.pid_7_1" / "cuda_utils.so").write_bytes(b"half written")
    cache, elsewhere = tmp_path / "executors-cache", tmp_path / "elsewhere"
    cache.mkdir()
    elsewhere.mkdir()
    (cache / "0123abcd").symlink_to(elsewhere)
    gpu_compile.with_driver_helpers(str(cache))
    assert list(elsewhere.iterdir()) == []
    assert not (cache / "0123abcd").is_symlink()
    assert [p.name for p in (cache / "0123abcd").iterdir()] == ["cuda_utils.so"]


def test_without_the_judges_build_a_process_cache_is_left_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "judge"))
    cache = tmp_path / "runner" / "triton-cache"
    gpu_compile.with_driver_helpers(str(cache))
    assert not cache.exists()


# In a Python of its own, whose triton has not hashed its files yet: what triton_key() answers
# after the judge's record of it is used, and what hashing the files again gives.
KEY_IN_A_FRESH_PROCESS = """
import json, sys
from drills.judge import gpu_compile
from triton.runtime.cache import triton_key
gpu_compile.use_triton_key(gpu_compile.recorded_triton_key())
print(json.dumps([triton_key(), triton_key.__wrapped__()]))
"""


def test_a_recorded_triton_key_spares_every_later_process_the_hash(tmp_path):
    """A fork server records triton's hash of its own files; a later process (the next grade's
    executor, the compile process) answers triton_key() from that record, and triton's own
    function still hashes the files as before."""
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path))

    def in_a_fresh_process(code: str) -> list:
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=catalog.ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    in_a_fresh_process(
        "from drills.judge import gpu_compile; gpu_compile.record_triton_key(); print(1)"
    )
    [record] = (tmp_path / "drills-triton-key").iterdir()
    hashed = record.read_text()
    record.write_text("the recorded key")  # as a record of it that differs would answer
    assert in_a_fresh_process(KEY_IN_A_FRESH_PROCESS) == ["the recorded key", hashed]
    record.unlink()  # no record: triton hashes, as it would without the judge
    assert in_a_fresh_process(KEY_IN_A_FRESH_PROCESS) == [hashed, hashed]


@pytest.mark.skipif(not runtime.current().is_gpu, reason="triton's CUDA helpers need CUDA")
def test_a_process_given_the_judges_driver_helpers_compiles_none(tmp_path):
    """The build the fork server's image makes is the one a forked process's triton looks
    for: with a copy in its cache and no C compiler (CC=/bin/false), its driver still loads."""
    gpu_compile.build_driver_helpers()
    cache = tmp_path / "triton-cache"
    gpu_compile.with_driver_helpers(str(cache))
    assert any(cache.rglob("cuda_utils*")), "the image built nothing"
    done = subprocess.run(
        [sys.executable, "-c", "from triton.backends.nvidia.driver import CudaUtils; CudaUtils()"],
        env=dict(os.environ, TRITON_CACHE_DIR=str(cache), CC="/bin/false"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.skipif(not runtime.current().is_gpu, reason="CUDA IPC: needs a GPU")
def test_no_segment_the_executor_maps_holds_the_judges_other_memory():
    """CUDA IPC maps the whole allocator segment a shared buffer lies in: what the judge keeps
    for itself (expected values, snapshots), allocated between shared buffers, lies in other
    segments, so no kernel can read it by looking around its own tensors."""
    shared = [remote.shared_empty(1000, torch.float32, "cuda") for _ in range(4)]
    own = [torch.empty(1000, dtype=torch.float32, device="cuda") for _ in range(4)]
    segments = [
        (s["address"], s["address"] + s["total_size"]) for s in torch.cuda.memory_snapshot()
    ]

    def segment_of(t: torch.Tensor) -> tuple[int, int]:
        return next(s for s in segments if s[0] <= t.data_ptr() < s[1])

    mapped = {segment_of(t) for t in shared}
    assert not {segment_of(t) for t in own} & mapped


def test_buffers_the_executor_cannot_open_are_the_judges_failure():
    """Before anything of the learner's runs in a case, the executor maps the case's buffers:
    where that fails (on a GPU, CUDA IPC once did), the grade says the grader failed, not that
    the learner's code crashed."""
    module = {"module": "import triton\n", "shown_as": "t1_add.py", "left_out": []}
    executor = remote.ExecutorProcess("t1_add.py", module, remote.Sandbox(), time.time() + 120)
    missing = {"id": 1, "ipc": None, "nbytes": 64, "dtype": "float32"}  # a memfd never sent
    try:
        with pytest.raises(remote.JudgesOwnFailure, match="could not open the case's buffers"):
            executor.send({"op": "replay", "steps": [], "buffers": [missing]}, [], 60)
    finally:
        executor.stop()
