"""The judge's side of a learner's file: its buffers, the two processes it starts per drill,
and the calls the graded suites make.

The judge never imports a learner's file. `LearnerCode` stands for it in the graded suites. A
call of the learner's host function goes first to a runner (drills/runner.py, untrusted), which
has imported a private copy of the file and nothing of the repository, and calls the function
on stand-ins of the judge's buffers; it answers with a record of the launches and the data
movement the call asked for. The record then goes to the executor (drills/judge/executor.py, the
judge's), which runs the learner's kernels, read from the judge's own vetting of the file, on
the judge's real buffers, shared with it alone. The judge grades those buffers.
"""

import base64
import json
import mmap
import os
import pickle
import re
import shutil
import socket
import subprocess
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import torch

from drills import catalog, processes, runtime
from drills.errors import explain
from drills.failures import SHOWN_BY_STATUS, Kind, Stop
from drills.judge import forks, gpu_compile
from drills.judge.gpu_compile import judge_cache, kernels_cache, with_driver_helpers
from drills.judge.source import LearnerSource
from drills.judge.source import read as read_source
from drills.judge.syntax import SourceError

# what a kernel that runs out of time may be doing: a GPU runs the first for ever, and the
# interpreter, at about a millisecond a program, the others for minutes
TIMEOUT_CAUSES = (
    "An endless loop (a while whose condition never changes, a wait on programs that are not "
    "running), or more than the interpreter runs in time: far too many programs (a tiny "
    "BLOCK_SIZE?) or a loop over one element at a time."
)

# the untrusted side: the only file beside the judge's package that a runner runs
RUNNER_SCRIPT = Path(__file__).resolve().parent.parent / "runner.py"
MAX_REPLY = 4 << 20
MAX_DEPTH = 32  # nesting of lists and dicts in a reply: a launch record needs about six
# Seconds for a forked runner or executor to start: confine itself and import the learner's file
# (on a GPU, triton may first compile its driver helpers).
START_LIMIT = {"interpreter": 90, "gpu": 240}
# Limits the runner puts on itself before it imports the learner's file (resource module
# names): no core dumps, and no file larger than this (a runaway print, a cache gone wrong).
RUNNER_LIMITS = {"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 1 << 30}
# Runners started per drill at most: one per crash or timeout, each costs an import of torch.
MAX_STARTS = 12


class LearnerError(Exception):
    """A case could not get a result from the learner's code: `kind` says how (a Stop), the
    message says it in words, `shows` the kind of mistake (drills.failures; by default, the
    one `kind` is), and `line` the line of the learner's file it points at, where it points at
    one."""

    def __init__(
        self, kind: Stop, message: str, shows: Kind | None = None, line: int | None = None
    ):
        super().__init__(message)
        self.kind, self.line = kind, line
        self.shows = shows or SHOWN_BY_STATUS.get(kind, Kind.RAISED)


class JudgesOwnFailure(Exception):
    """The judge's own machinery failed on a case, before the learner's code ran in it: the
    grade says the grader failed, never that the learner's code did."""


def _too_big(resources) -> str:
    """A kernel this GPU cannot load (triton's OutOfResources), in words; "" if it is not that."""
    if not isinstance(resources, dict):
        return ""
    required, limit = resources.get("required"), resources.get("limit")
    if not (isinstance(required, int) and isinstance(limit, int)):
        return ""
    name = str(resources.get("name", "resources"))[:50]
    if name == "shared memory":
        need = (
            f"needs {required / 1024:.0f} KB of shared memory, this GPU has {limit / 1024:.0f} KB"
        )
    else:
        need = f"needs {required} of {name}, this GPU has {limit}"
    return (
        f"the kernel {need} per block, so it cannot load here (OutOfResources). Smaller blocks "
        "or fewer num_stages fit; an autotune list may keep such a config, since the autotuner "
        "skips it, as long as another one fits."
    )


# ---------------------------------------------------------------------------------------------
# Shared buffers
# ---------------------------------------------------------------------------------------------


@dataclass
class _Shared:
    id: int
    fd: int | None  # memfd of a CPU buffer
    nbytes: int
    dtype: torch.dtype


_shared: dict[int, _Shared] = {}  # storage data_ptr -> buffer
_next_id = [0]


def shared_empty(numel: int, dtype: torch.dtype, device: str) -> torch.Tensor:
    """A 1-D tensor a runner can map: memfd-backed on the CPU, any CUDA tensor on a GPU."""
    nbytes = max(numel, 1) * dtype.itemsize
    fd = None
    if device == "cpu":
        fd = os.memfd_create("drills-buffer", os.MFD_CLOEXEC)
        os.ftruncate(fd, nbytes)
        mapped = mmap.mmap(fd, nbytes)
        tensor = torch.frombuffer(mapped, dtype=torch.uint8).view(dtype)[:numel]
        # the storage keeps the mapping alive: when both go, so does the buffer's memfd
        weakref.finalize(mapped, _forget, tensor.untyped_storage().data_ptr(), fd)
    else:
        # a CUDA buffer has nothing to close; a later one at the same address replaces it.
        # CUDA IPC maps the whole allocator segment a buffer lies in, so shared buffers come from
        # a pool of their own: no segment the executor maps holds anything else of the judge's
        # (its expected values, the inputs' snapshots)
        with torch.cuda.use_mem_pool(_shared_pool(device)):
            tensor = torch.empty(max(numel, 1), dtype=dtype, device=device)[:numel]
    _next_id[0] += 1
    _shared[tensor.untyped_storage().data_ptr()] = _Shared(_next_id[0], fd, nbytes, dtype)
    return tensor


_pools: dict[str, "torch.cuda.MemPool"] = {}


def _shared_pool(device: str) -> "torch.cuda.MemPool":
    """The memory pool of the buffers the judge shares with its executor, on `device`."""
    if device not in _pools:
        with torch.cuda.device(device):
            _pools[device] = torch.cuda.MemPool()
    return _pools[device]


def give_back_shared_memory() -> None:
    """Return to the GPU the memory of the shared buffers freed so far. A live pool keeps every
    block it ever held (torch.cuda.empty_cache frees a pool's blocks only once no MemPool holds
    it), so after a case of gigabytes the judge would keep them from the drills graded beside
    it until it ends; and a buffer sent to the executor is kept until ipc_collect sees that the
    executor let go of it. The next shared buffer comes from a new pool."""
    _pools.clear()
    if torch.cuda.is_initialized():
        torch.cuda.ipc_collect()
        torch.cuda.empty_cache()


def _forget(ptr: int, fd: int) -> None:
    _shared.pop(ptr, None)
    os.close(fd)


def buffer_ref(t: torch.Tensor) -> str | None:
    """How records name the buffer `t` lives in: "b3"."""
    entry = _shared.get(t.untyped_storage().data_ptr())
    return f"b{entry.id}" if entry else None


class _Message:
    """The tensors of one request, as specs, with the table of buffers they view. For the
    executor the table shares each buffer (its memfd, or a CUDA IPC handle); a runner gets
    only each buffer's size and dtype, to make a stand-in of its own."""

    def __init__(self, share: bool = True):
        self.share = share
        self.table: list[dict] = []
        self.fds: list[int] = []
        self._seen: set[int] = set()

    def spec(self, value):
        if not isinstance(value, torch.Tensor):
            return value
        entry = _shared.get(value.untyped_storage().data_ptr())
        if entry is None:
            raise ValueError("the judge can only share tensors made by shared_empty")
        if entry.id not in self._seen:
            self._seen.add(entry.id)
            self.table.append(self._describe(entry, value))
        return {
            "ref": f"b{entry.id}",
            "dtype": _name(value.dtype),
            "shape": list(value.shape),
            "stride": list(value.stride()),
            "offset": value.storage_offset(),
        }

    def _describe(self, entry: "_Shared", value: torch.Tensor) -> dict:
        numel = entry.nbytes // entry.dtype.itemsize
        if not self.share:
            return {"ref": f"b{entry.id}", "dtype": _name(entry.dtype), "numel": numel}
        ipc = None
        if entry.fd is None:
            base = torch.empty(0, dtype=entry.dtype, device=value.device).set_(
                value.untyped_storage(), 0, (numel,)
            )
            ipc = _cuda_handle(base)
        else:
            self.fds.append(entry.fd)
        return {"id": entry.id, "nbytes": entry.nbytes, "dtype": _name(entry.dtype), "ipc": ipc}


def _cuda_handle(base: torch.Tensor) -> str:
    from torch.multiprocessing.reductions import reduce_tensor

    return base64.b64encode(pickle.dumps(reduce_tensor(base))).decode()


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# ---------------------------------------------------------------------------------------------
# The runner and the executor
# ---------------------------------------------------------------------------------------------


@dataclass
class Sandbox:
    """How runners are confined: as another user (uid and gid), or as this one (None)."""

    user: tuple[int, int] | None = None
    cpu_seconds: int | None = None
    processes: int | None = None


class ChildProcess:
    """A process the judge talks to, one JSON message each way per request: started on first
    use, and again after a crash or a timeout, until the drill's deadline."""

    role = "child"  # what the learner is told was running
    # the pids of the children running now, runner and executor: one's clean-up of the orphans
    # it left must not kill the other (both are the judge's, their subreaper's, descendants)
    running: set[int] = set()

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.kind = runtime.current().kind
        self.process: subprocess.Popen | forks.Forked | None = None
        self.sock: socket.socket | None = None
        self.greeted = False  # its hello (imports done) is read
        self.starts = 0
        self.import_error: LearnerError | None = None

    def popen(self, fd: int) -> forks.Forked:
        raise NotImplementedError

    def _spawn(self) -> None:
        if self.starts >= MAX_STARTS:
            raise LearnerError(
                Stop.CRASHED, f"not run: the {self.role} was restarted {MAX_STARTS} times already."
            )
        self.starts += 1
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # its output, in a file with no name: nothing the child does can swap it for a link
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.process = self.popen(theirs.fileno())
        ChildProcess.running.add(self.process.pid)
        theirs.close()
        self.sock, self.greeted = ours, False

    def _greet(self) -> None:
        hello = self._receive(START_LIMIT[self.kind], "starting (importing your file)")
        if not hello.get("ok"):
            error = hello.get("error") if isinstance(hello.get("error"), dict) else {}
            self.import_error = LearnerError(
                Stop.IMPORT_ERROR, self._import_failure(hello), line=_line(error)
            )
            self.stop()
            raise self.import_error
        self.greeted = True

    def signal_to_end(self) -> None:
        """SIGKILL it without waiting; stop() then waits."""
        if self.process is not None:
            processes.signal_tree(self.process)

    def stop(self) -> None:
        if self.process is not None:
            processes.kill_tree(self.process)
            ChildProcess.running.discard(self.process.pid)
            # orphans it left behind were re-parented to the judge, its subreaper
            processes.kill_descendants(spare=forks.server_pids() + tuple(ChildProcess.running))
            self.log.close()
        if self.sock is not None:
            self.sock.close()
        self.process = self.sock = None

    def begin(self) -> None:
        """Start the process and leave it starting (importing the learner's file; on a GPU,
        making its CUDA context) while the judge goes on: the first request waits for its
        hello."""
        if self.process is None and self.import_error is None:
            self._spawn()

    def start_once(self) -> None:
        """Start the process unless it runs, and wait for its hello unless that came; an
        import error, once seen, is final."""
        if self.import_error:
            raise self.import_error
        self.begin()
        if not self.greeted:
            self._greet()

    def send(self, body: dict, fds: list[int], case_limit: float) -> dict:
        """Send one request; its reply, or a LearnerError saying why there is none."""
        if self.process is not None and self.process.poll() is not None:
            # it died after its last reply (a wild store can corrupt what is freed after a
            # case): that case has its reply, and this one gets a fresh process
            self.stop()
        self.start_once()
        try:
            socket.send_fds(self.sock, [json.dumps(body).encode()], fds)
        except OSError:  # it died just now, before reading the request
            raise LearnerError(Stop.CRASHED, self._death()) from None
        reply = self._receive(case_limit, "running this case")
        if reply.get("ok"):
            return reply
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        if error.get("fatal"):
            self.stop()
        if error.get("judges") and self.role == "executor":
            said = f"{str(error.get('type'))[:100]}: {str(error.get('message'))[:2000]}"
            raise JudgesOwnFailure(
                f"the judge's executor could not open the case's buffers: {said}"
            )
        raise LearnerError(*self._classify(error), line=_line(error))

    def _receive(self, limit: float, doing: str) -> dict:
        left = self.deadline - time.time()
        self.sock.settimeout(max(0.1, min(limit, left)))
        try:
            data, _, flags, _ = self.sock.recvmsg(MAX_REPLY)
        except ConnectionResetError:  # it died with the request unread
            raise LearnerError(Stop.CRASHED, self._death()) from None
        except TimeoutError:
            self.stop()
            why = "the drill's time ran out" if left < limit else f"it took over {limit:.0f} s"
            raise LearnerError(
                Stop.TIMEOUT,
                f"stopped while {doing}: {why}. {TIMEOUT_CAUSES}",
            ) from None
        if not data:
            raise LearnerError(Stop.CRASHED, self._death())
        try:
            reply = json.loads(data)
        except (ValueError, RecursionError):
            reply = None
        if flags & socket.MSG_TRUNC or not isinstance(reply, dict) or too_deep(reply):
            # the next reply would answer this request: a fresh process answers the next one
            self.stop()
            raise LearnerError(Stop.CRASHED, f"the {self.role} sent a reply the judge cannot read.")
        return reply

    def _death(self) -> str:
        returncode = self.process.wait(timeout=30)
        tail = self._output_tail()
        self.stop()
        if not tail:
            return processes.death(returncode)
        # what it printed (an allocator's "corrupted double-linked list") is evidence, not
        # advice: the advice comes last, where the report looks for it
        what, advice = processes.death_parts(returncode)
        advice = explain(tail) or advice
        return f"{what}\nIt printed, last:\n{tail}" + (f"\n{advice}" if advice else "")

    def _output_tail(self, limit: int = 2000) -> str:
        fd = self.log.fileno()
        tail = os.pread(fd, limit, max(0, os.fstat(fd).st_size - limit))
        return tail.decode(errors="replace").strip()

    def _classify(self, error: dict) -> tuple[str, str, Kind]:
        raise NotImplementedError

    def _import_failure(self, hello: dict) -> str:
        raise NotImplementedError


def too_deep(value) -> bool:
    """Whether a reply nests lists and dicts deeper than MAX_DEPTH (the judge's code that reads
    it, repr included, would recurse that deep); measured without recursing."""
    todo = [(value, 1)]
    while todo:
        item, level = todo.pop()
        if isinstance(item, (dict, list)):
            if level > MAX_DEPTH:
                return True
            todo.extend((v, level + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def new_file(path: Path, content: bytes) -> Path:
    """Write a file that must not exist yet, never through a link."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with os.fdopen(os.open(path, flags, 0o644), "wb") as f:
        f.write(content)
    return path


def explained(message: str, *clues: str) -> str:
    """`message`, and on a line of its own what the first of `clues` that drills.errors knows
    usually means."""
    meaning = next(filter(None, map(explain, clues)), "")
    return f"{message}\n{meaning}" if meaning else message


def _line(error: dict) -> int | None:
    """The line of the learner's file an error points at, or None."""
    line = error.get("line")
    return line if isinstance(line, int) and line > 0 else None


def _where(shown_as: str, error: dict) -> str:
    line = _line(error)
    if line is None:
        return ""
    return f"\n    at {shown_as}, line {line}: {str(error.get('code', ''))[:300]}"


# torch's advice for finding the launch that faulted, which the executor names: it waits for
# each launch to finish
_TORCH_FAULT_ADVICE = re.compile(
    r"^(Search for `cuda\w+' in \S+ for more information\."
    r"|CUDA kernel errors might be asynchronously reported .*"
    r"|For debugging consider passing CUDA_LAUNCH_BLOCKING=1\.?"
    r"|Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions\.)\n?",
    re.MULTILINE,
)


def without_torch_fault_advice(text: str) -> str:
    """A CUDA fault's words without torch's lines on how to find where it came from."""
    return _TORCH_FAULT_ADVICE.sub("", text).strip()


def _launch_that_faulted(launch) -> str:
    """A GPU fault's launch, as the executor saw it: it waits for each launch to finish, so the
    one running when the fault came is the one that made it."""
    if not isinstance(launch, dict):
        return ""
    grid = tuple(launch.get("grid", []))
    scalars = ", ".join(f"{k}={v}" for k, v in list(launch.get("scalars", {}).items())[:12])
    return (
        f"\n    in launch {launch.get('index')} of {launch.get('of')} of this case: "
        f"{launch.get('kernel')}[{grid}]({scalars})"
    )


class RunnerProcess(ChildProcess):
    """The learner's host code, confined: it proposes launches, and holds nothing of the
    judge's."""

    role = "runner"

    def __init__(self, learner_file: Path, shown_as: str, sandbox: Sandbox, deadline: float):
        super().__init__(deadline)
        self.shown_as, self.sandbox = shown_as, sandbox
        # read once: every start runs the same file, whatever happens to the path
        self.learner_name, self.learner_text = learner_file.name, learner_file.read_bytes()
        self.script_text = RUNNER_SCRIPT.read_bytes()
        self.folder: Path | None = None

    def fresh_folder(self) -> Path:
        """A new folder for each start, made by the judge: whatever an earlier runner left in
        its own (links to the judge's files, a FIFO) is deleted unread, never written through."""
        self.remove_folder()
        self.folder = Path(tempfile.mkdtemp(prefix="drills-runner-"))
        processes.remove_on_stop(self.folder)  # it holds a copy of the learner's file
        return self.folder

    def remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)  # unlinks links, never follows them
            processes.removed(self.folder)
            self.folder = None

    def close(self) -> None:
        self.stop()
        self.remove_folder()

    def popen(self, fd: int) -> forks.Forked:
        return _fork(self.job(self.fresh_folder()), fd, self.log)

    def job(self, folder: Path) -> dict:
        """What the fork server is asked for (drills.judge.forks): the runner, in `folder`."""
        script = new_file(folder / "runner.py", self.script_text)
        learner = new_file(folder / self.learner_name, self.learner_text)
        env = runner_environment(folder, self.sandbox)
        if runtime.current().is_gpu:
            with_driver_helpers(env["TRITON_CACHE_DIR"])
        limits = dict(RUNNER_LIMITS)
        if self.sandbox.cpu_seconds:
            limits["RLIMIT_CPU"] = self.sandbox.cpu_seconds
        if self.sandbox.processes:
            limits["RLIMIT_NPROC"] = self.sandbox.processes
        if self.sandbox.user:
            uid, gid = self.sandbox.user
            for path in _everything_in(folder):
                os.chown(path, uid, gid, follow_symlinks=False)
        return {
            "program": str(script),
            "args": ["{channel}", str(learner)],
            "cwd": str(folder),
            "env": env,
            "confinement": forks.confinement(hide=judge_cache(), writable=[str(folder)]),
            "user": self.sandbox.user,
            "limits": limits,
            "no_processes": True,
        }

    def request(self, op: str, case_limit: float, **fields) -> dict:
        message = _Message(share=False)
        body = {"op": op, **{k: _specs(message, v) for k, v in fields.items()}}
        body["buffers"] = message.table
        return self.send(body, [], case_limit)

    def _classify(self, error: dict) -> tuple[str, str, Kind]:
        kind = str(error.get("type", "Exception"))[:100]
        text = str(error.get("message", ""))[:4000].strip()
        if error.get("not_started"):
            return Stop.NOT_STARTED, text, Kind.NOT_STARTED
        where = _where(self.shown_as, error)
        raised = explained(f"your code raised {kind}: {text}{where}", text, where)
        return Stop.FAILED, raised, Kind.RAISED

    def _import_failure(self, hello: dict) -> str:
        error = hello.get("error") if isinstance(hello.get("error"), dict) else {}
        kind = str(error.get("type", "Exception"))[:100]
        text = str(error.get("message", ""))[:2000]
        # an import runs the decorators: triton 3.9's autotune refuses a key it cannot follow
        where = _where(self.shown_as, error)
        return explained(f"importing {self.shown_as} failed: {kind}: {text}{where}", text, where)


class ExecutorProcess(ChildProcess):
    """The judge's process that runs the learner's kernels (from the judge's reading of the
    file) on the judge's buffers. The kernels are the learner's code too (on the interpreter a
    kernel body runs as Python), so it is confined as a runner is: namespaces and a read-only
    machine but for its scratch, none of the judge's environment, limits, no new processes,
    and under --sandbox the run's own user. On a GPU, where triton runs ptxas and a C compiler
    for each new kernel, it may start processes, writes only a triton cache of its own for the
    file's kernels, and runs as the grader's user (it maps the judge's buffers through CUDA
    IPC)."""

    role = "executor"

    def __init__(self, shown_as: str, kernel_module: dict, sandbox: Sandbox, deadline: float):
        super().__init__(deadline)
        self.shown_as, self.kernel_module, self.sandbox = shown_as, kernel_module, sandbox

    def popen(self, fd: int) -> forks.Forked:
        return _fork(self.job(), fd, self.log)

    def job(self) -> dict:
        """What the fork server is asked for (drills.judge.forks)."""
        interpreting = not runtime.current().is_gpu
        env = forks.kept(os.environ)
        if interpreting:
            env["TRITON_CACHE_DIR"] = "/tmp/triton-cache"  # its own: nothing is compiled here
            writable = []
        else:
            env["TRITON_CACHE_DIR"] = kernels_cache("gpu", self.kernel_module["module"])
            with_driver_helpers(env["TRITON_CACHE_DIR"])
            # CUDA's IPC, which maps the judge's buffers here, works through /dev/shm
            writable = [env["TRITON_CACHE_DIR"], "/dev/shm"]
        limits = dict(RUNNER_LIMITS)
        user = self.sandbox.user if interpreting else None
        if user and self.sandbox.processes:
            limits["RLIMIT_NPROC"] = self.sandbox.processes
        return {
            "program": "drills.judge.executor",
            "module": True,
            "args": ["{channel}"],
            "cwd": str(catalog.ROOT),
            "env": env,
            "confinement": forks.confinement(writable=writable),
            "repository": True,
            "user": user,
            "limits": limits,
            "no_processes": interpreting,
        }

    def _greet(self) -> None:
        try:
            super()._greet()
        except LearnerError as e:
            # its hello comes before it reads anything of the learner's: a death before it is
            # the judge's own (a broken install), never the learner's file
            if e.kind != Stop.CRASHED:
                raise
            raise JudgesOwnFailure(f"the judge's executor died while starting: {e}") from None
        self.send({"op": "load", **self.kernel_module}, [], START_LIMIT[self.kind])

    def request(self, op: str, case_limit: float, **fields) -> dict:
        message = _Message()
        body = {"op": op, **{k: _specs(message, v) for k, v in fields.items()}}
        body["buffers"] = message.table
        return self.send(body, message.fds, case_limit)

    def _classify(self, error: dict) -> tuple[str, str, Kind]:
        kind = str(error.get("type", "Exception"))[:100]
        text = str(error.get("message", ""))[:4000].strip()
        if error.get("refused"):
            refused = f"the judge could not run what your host code asked for: {text}"
            return Stop.FAILED, refused, Kind.JUDGE_CANNOT_RUN
        if error.get("limit"):
            return Stop.FAILED, text, Kind.GPU_LIMIT
        if error.get("race"):
            return Stop.FAILED, text, Kind.RACE
        if error.get("outside") in ("load", "store"):
            kind = Kind.READ_OUTSIDE if error["outside"] == "load" else Kind.WROTE_OUTSIDE
            return Stop.FAILED, f"{text}{_where(self.shown_as, error)}", kind
        too_big = _too_big(error.get("resources"))
        if too_big:
            return Stop.OUT_OF_RESOURCES, too_big, Kind.GPU_REFUSES
        if error.get("fatal"):
            text = without_torch_fault_advice(text)
            where = _launch_that_faulted(error.get("launch")) or _where(self.shown_as, error)
            faulted = explained(f"your kernel raised {kind}: {text}{where}", text)
            return Stop.CUDA_FAULT, faulted, Kind.CUDA_FAULT
        raised = f"{kind}: {text}{_where(self.shown_as, error)}"
        # the line it stopped at may be the whole clue: an assertion without a message
        said = explained(f"your kernel raised {raised}", text, raised)
        # on a GPU, a kernel the compiler refuses raises at its launch
        return Stop.FAILED, said, Kind.NOT_COMPILED if kind == "CompilationError" else Kind.RAISED

    def _import_failure(self, hello: dict) -> str:
        error = hello.get("error") if isinstance(hello.get("error"), dict) else {}
        return f"the judge's executor could not start: {error.get('message', '?')}"


def _fork(job: dict, fd: int, log) -> forks.Forked:
    try:
        return forks.spawn(job, fd, log.fileno())
    except forks.CannotStart as e:
        raise LearnerError(Stop.CRASHED, f"not run: {e}") from None


def _specs(message: _Message, value):
    if isinstance(value, dict):
        return {k: _specs(message, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_specs(message, v) for v in value]
    return message.spec(value)


def _everything_in(folder: Path):
    """`folder` and every file and folder below it, links not followed."""
    yield folder
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            yield Path(parent) / name


def runner_environment(folder: Path, sandbox: Sandbox) -> dict[str, str]:
    env = forks.kept(os.environ)
    # a cache of its own: the judge's is hidden from it, and nothing it writes may reach the
    # judge's processes
    env["TRITON_CACHE_DIR"] = str(folder / "triton-cache")
    if sandbox.user:
        # another user cannot write this user's home or caches: everything in the folder
        env |= {"HOME": str(folder), "TMPDIR": str(folder)}
    return env


# ---------------------------------------------------------------------------------------------
# The learner's code, as the suites see it
# ---------------------------------------------------------------------------------------------


class LearnerCode:
    """A learner's drill file, read by the judge, its host code run by a runner and its
    kernels by the judge's executor: `code.add.call(...)` records what `add` asks for, and
    `code.replay(...)` runs that record on the judge's buffers."""

    def __init__(
        self,
        path: Path,
        shown_as: str,
        case_limit: float,
        deadline: float,
        sandbox: Sandbox | None = None,
    ):
        self.shown_as, self.case_limit = shown_as, case_limit
        try:
            self.source: LearnerSource | None = read_source(path, shown_as)
            self.source_error = None
        except SourceError as e:
            self.source, self.source_error = (
                None,
                LearnerError(Stop.IMPORT_ERROR, str(e), line=e.line),
            )
        self.runner = RunnerProcess(path, shown_as, sandbox or Sandbox(), deadline)
        self.deadline = deadline
        self._executor: ExecutorProcess | None = None
        self.known_past_end: str | None = None  # an input a kernel has been seen to read past

    def begin(self) -> None:
        """Start the runner and the executor now, so that they start while the judge collects
        the cases, and on the interpreter the compile process that every case's launches go
        through: a file the judge can tell is not gradable yet (unreadable, not started)
        starts none of them."""
        if self.source is None or any(map(self.source.raises_not_started, self.source.top_level)):
            return
        if not runtime.current().is_gpu:  # first: the first case waits for it
            gpu_compile.begin(self)
        self.runner.begin()
        self.executor.begin()

    def __getattr__(self, name: str) -> "RemoteFunction":
        if name.startswith("_"):
            raise AttributeError(name)
        return RemoteFunction(self, name)

    def defines(self, name: str) -> bool:
        return self.source is not None and self.source.defines_function(name)

    def takes_positional(self, name: str, count: int) -> bool:
        """Whether the file defines a function `name` that `count` positional arguments fit."""
        return self.source is not None and self.source.takes_positional(name, count)

    def kernel_names(self) -> tuple[str, ...]:
        """The file's top-level @triton.jit functions, as the judge reads them."""
        return self.source.jit_names if self.source is not None else ()

    def autotuned(self, kernel: str) -> bool:
        """Whether the file decorates `kernel` with @triton.autotune, as the judge reads it."""
        return self.source is not None and self.source.autotuned(kernel)

    def source_configs(self, kernel: str, on_a_gpu: bool = False) -> list | None:
        """`kernel`'s autotune configs as the judge reads them in the source (with on_a_gpu,
        as a GPU machine would have them), or None."""
        return self.source.autotune_configs(kernel, on_a_gpu) if self.source is not None else None

    def autotune_key_strays(self, kernel: str) -> list[str]:
        """Names in `kernel`'s autotune key that are not its arguments, as the judge reads them."""
        return self.source.autotune_key_strays(kernel) if self.source is not None else []

    def check_readable(self, entry: str) -> None:
        """What the judge can tell from the source alone, before anything runs."""
        if self.source_error:
            raise self.source_error
        if self.source.raises_not_started(entry):
            raise LearnerError(Stop.NOT_STARTED, f"{self.shown_as} still raises NotStarted.")

    @property
    def executor(self) -> ExecutorProcess:
        if self._executor is None:
            text, left_out = self.source.kernel_module()
            module = {
                "module": text,
                "shown_as": self.shown_as,
                "left_out": list(map(str, left_out)),
            }
            self._executor = ExecutorProcess(
                self.shown_as, module, self.runner.sandbox, self.deadline
            )
        return self._executor

    def ask_runner(self, op: str, entry: str, **fields) -> dict:
        self.check_readable(entry)
        return self.runner.request(op, self.case_limit, **fields)

    def replay(
        self,
        steps: list,
        guarded: dict,
        fetch: list[dict] | None = None,
        writers: dict | None = None,
        past_end: list[str] | None = None,
    ) -> dict:
        """Run a runner's record on the judge's buffers: the executor's reply. On the
        interpreter, `writers` (int32 tensors, each as large as a guarded tensor's buffer) get
        the program that stored into each element. On a GPU, the guarded tensors named in
        `past_end` end where mapped memory ends (drills/judge/past_end.py)."""
        return self.executor.request(
            "replay",
            self.case_limit,
            steps=steps,
            guarded=guarded,
            fetch=fetch,
            writers=writers,
            past_end=past_end,
        )

    def read_past_the_end(self, steps: list, guarded: dict, names: list[str]) -> str | None:
        """After a replay with `names` ending at unmapped memory faulted: the one whose end the
        kernels read past, found by running the record again without that (a fault then is
        the kernels' own, and None is the answer) and with one of them at a time. Each fault
        costs a fresh executor, so the name found is tried first in later cases."""
        try:
            self.replay(steps, guarded)
        except LearnerError as e:
            if e.kind == Stop.CUDA_FAULT:
                return None
            raise
        if len(names) == 1:
            return names[0]
        for name in names:
            try:
                self.replay(steps, guarded, past_end=[name])
            except LearnerError as e:
                if e.kind != Stop.CUDA_FAULT:
                    raise
                self.known_past_end = name
                return name
        return None

    def configs(self, kernel: str, entry: str) -> list[str]:
        """The autotune configs of `kernel` (the name its launches record), as the runner lists
        them, after importing the file that defines `entry`: they only choose which configs
        the judge runs. [] where it is not autotuned."""
        listed = self.ask_runner("configs", entry).get("configs")
        listed = listed.get(kernel) if isinstance(listed, dict) else None
        return [str(c)[:300] for c in listed[:64]] if isinstance(listed, list) else []

    def probe(self, source: str, kernel: str, programs: int, calls: str, **args) -> None:
        """Run `kernel`, a kernel of the judge's in `source`, appended to the file's kernels so
        that it can call `calls`, a helper of the file's, on `programs` programs with `args`
        (the judge's tensors, written in place, numbers, and constexprs by name). On the
        interpreter it is compiled as a GPU would compile it first: a helper that only a GPU
        refuses fails here too. The drill's suite says what it probes (T4: grouped_tile)."""
        if not runtime.current().is_gpu:
            described = {
                name: {"tensor": _name(value.dtype)} if isinstance(value, torch.Tensor) else value
                for name, value in args.items()
            }
            launch = SimpleNamespace(kernel=kernel, args=described)
            errors = gpu_compile.failures(self, [launch], source)
            if errors:
                message = self.source.in_file_lines(errors[0])
                raise LearnerError(
                    Stop.FAILED, f"{calls} {gpu_compile.NOT_COMPILED}\n{message}", Kind.NOT_COMPILED
                )
        self.executor.request(
            "probe",
            self.case_limit,
            source=source,
            kernel=kernel,
            programs=programs,
            calls=calls,
            args=args,
        )

    def close(self) -> None:
        # both signalled first: on a GPU each takes a CUDA context down as it ends, at once
        for child in (self.runner, self._executor):
            if child is not None:
                child.signal_to_end()
        self.runner.close()
        if self._executor is not None:
            self._executor.stop()


class RemoteFunction:
    def __init__(self, code: LearnerCode, name: str):
        self.code, self.__name__ = code, name

    def call(
        self,
        args: list,
        kwargs: dict,
        config: int | dict | None = None,
        benchmark: bool = False,
        again: dict | None = None,
        again_args: list | None = None,
    ) -> dict:
        """Call the function in the runner, on stand-ins of the judge's tensors: its record.
        With benchmark, autotune's timing runs of each config are in the record too; with
        `again` (keyword arguments), a second call follows the first, on `again_args` where
        given, else on the same arguments."""
        return self.code.ask_runner(
            "call",
            self.__name__,
            fn=self.__name__,
            args=args,
            kwargs=kwargs,
            config=config,
            benchmark=benchmark,
            again=again,
            again_args=again_args,
        )
