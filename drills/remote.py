"""The judge's side of the runner: buffers it shares, the runner process, and remote calls.

The judge never imports a learner's file. `LearnerCode` stands for it in the graded suites:
`impl.add(...)` in a test becomes a request to a runner process (drills/runner.py) that has
imported a private copy of the file and nothing of the repository, to call `add` on views of
buffers the judge made and shares with it. What comes back about the call (its launches, the
torch operations it ran, its reads of padding) is the runner's claim; the buffers are the
judge's own to inspect.
"""

import base64
import json
import mmap
import os
import pickle
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

import torch

from drills import catalog, processes, runtime
from drills.errors import explain
from drills.source import LearnerSource, SourceError
from drills.source import read as read_source

RUNNER_SCRIPT = Path(__file__).with_name("runner.py")
MAX_REPLY = 1 << 20
# Seconds for a runner to import torch, triton and the learner's file.
START_LIMIT = {"interpreter": 90, "gpu": 240}
# Limits the runner puts on itself before it imports the learner's file (resource module
# names): no core dumps, and no file larger than this (a runaway print, a cache gone wrong).
RUNNER_LIMITS = {"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 1 << 30}
# Runners started per drill at most: one per crash or timeout, each costs an import of torch.
MAX_STARTS = 12


class LearnerError(Exception):
    """A case could not get a result from the learner's code: `kind` says how (not_started,
    import_error, timeout, crashed, cuda_fault, out_of_resources, failed), the message says it
    in words."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


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
        # a CUDA buffer has nothing to close; a later one at the same address replaces it
        tensor = torch.empty(max(numel, 1), dtype=dtype, device=device)[:numel]
    _next_id[0] += 1
    _shared[tensor.untyped_storage().data_ptr()] = _Shared(_next_id[0], fd, nbytes, dtype)
    return tensor


def _forget(ptr: int, fd: int) -> None:
    _shared.pop(ptr, None)
    os.close(fd)


def buffer_id(t: torch.Tensor) -> int | None:
    entry = _shared.get(t.untyped_storage().data_ptr())
    return entry.id if entry else None


class _Message:
    """The tensors of one request, as specs, with the table of buffers they view."""

    def __init__(self):
        self.table: list[dict] = []
        self.fds: list[int] = []
        self._bases: dict[int, torch.Tensor] = {}

    def spec(self, value):
        if not isinstance(value, torch.Tensor):
            return value
        ptr = value.untyped_storage().data_ptr()
        entry = _shared.get(ptr)
        if entry is None:
            raise ValueError("the judge can only share tensors made by shared_empty")
        if entry.id not in self._bases:
            self._bases[entry.id] = value
            ipc = None
            if entry.fd is None:
                base = torch.empty(0, dtype=entry.dtype, device=value.device).set_(
                    value.untyped_storage(), 0, (entry.nbytes // entry.dtype.itemsize,)
                )
                ipc = _cuda_handle(base)
            else:
                self.fds.append(entry.fd)
            self.table.append(
                {"id": entry.id, "nbytes": entry.nbytes, "dtype": _name(entry.dtype), "ipc": ipc}
            )
        return {
            "buffer": entry.id,
            "dtype": _name(value.dtype),
            "shape": list(value.shape),
            "stride": list(value.stride()),
            "offset": value.storage_offset(),
        }


def _cuda_handle(base: torch.Tensor) -> str:
    from torch.multiprocessing.reductions import reduce_tensor

    return base64.b64encode(pickle.dumps(reduce_tensor(base))).decode()


def _name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


# ---------------------------------------------------------------------------------------------
# The runner process
# ---------------------------------------------------------------------------------------------


@dataclass
class Sandbox:
    """How runners are confined: as another user (uid and gid), or as this one (None)."""

    user: tuple[int, int] | None = None
    cpu_seconds: int | None = None
    processes: int | None = None


class Runner:
    """One runner process: started on first use, and again after a crash or a timeout."""

    def __init__(self, learner_file: Path, shown_as: str, sandbox: Sandbox, deadline: float):
        self.learner_file, self.shown_as = learner_file, shown_as
        self.sandbox, self.deadline = sandbox, deadline
        self.kind = runtime.current().kind
        self.folder = Path(tempfile.mkdtemp(prefix="drills-runner-"))
        self.process: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self.starts = 0
        self.import_error: LearnerError | None = None

    # -- lifetime --------------------------------------------------------------------------

    def _start(self) -> None:
        if self.starts >= MAX_STARTS:
            raise LearnerError(
                "crashed", f"not run: the runner was restarted {MAX_STARTS} times already."
            )
        self.starts += 1
        script = self.folder / "runner.py"
        learner = self.folder / self.learner_file.name
        shutil.copyfile(RUNNER_SCRIPT, script)
        shutil.copyfile(self.learner_file, learner)
        limits = dict(RUNNER_LIMITS)
        if self.sandbox.cpu_seconds:
            limits["RLIMIT_CPU"] = self.sandbox.cpu_seconds
        if self.sandbox.processes:
            limits["RLIMIT_NPROC"] = self.sandbox.processes
        if self.sandbox.user:
            uid, gid = self.sandbox.user
            for path in (self.folder, script, learner):
                os.chown(path, uid, gid)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [
            sys.executable,
            "-E",  # no PYTHONPATH: the repository must not be importable
            "-P",  # nor the script's folder
            str(script),
            str(theirs.fileno()),
            str(learner),
            json.dumps(limits),
        ]
        user = {}
        if self.sandbox.user:
            user = {"user": self.sandbox.user[0], "group": self.sandbox.user[1], "extra_groups": []}
        command = confinement() + command
        self.log = open(self.folder / "output.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            command,
            cwd=self.folder,
            env=runner_environment(self.folder, self.sandbox),
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            pass_fds=[theirs.fileno()],
            start_new_session=True,
            **user,
        )
        theirs.close()
        self.sock = ours
        hello = self._receive(START_LIMIT[self.kind], "starting (importing your file)")
        if not hello.get("ok"):
            self.import_error = LearnerError("import_error", self._import_failure(hello))
            self.stop()
            raise self.import_error

    def stop(self) -> None:
        if self.process is not None:
            processes.kill_tree(self.process)
            # orphans it left behind were re-parented to the judge, its subreaper
            processes.kill_descendants()
            self.log.close()
        if self.sock is not None:
            self.sock.close()
        self.process = self.sock = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- requests --------------------------------------------------------------------------

    def start_once(self) -> None:
        """Start the runner unless it runs; an import error, once seen, is final."""
        if self.import_error:
            raise self.import_error
        if self.process is None:
            self._start()

    def request(self, op: str, case_limit: float, **fields) -> dict:
        """Send one op; its reply, or a LearnerError saying why there is none."""
        self.start_once()
        message = _Message()
        body = {"op": op, **{k: _specs(message, v) for k, v in fields.items()}}
        body["buffers"] = message.table
        socket.send_fds(self.sock, [json.dumps(body).encode()], message.fds)
        reply = self._receive(case_limit, "running this case")
        if reply.get("ok"):
            return reply
        error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
        if error.get("fatal"):
            self.stop()
        raise LearnerError(*self._classify(error))

    def _receive(self, limit: float, doing: str) -> dict:
        left = self.deadline - time.time()
        self.sock.settimeout(max(0.1, min(limit, left)))
        try:
            data, _, flags, _ = self.sock.recvmsg(MAX_REPLY)
        except TimeoutError:
            self.stop()
            why = "the drill's time ran out" if left < limit else f"it took over {limit:.0f} s"
            raise LearnerError(
                "timeout",
                f"stopped while {doing}: {why}. An endless loop, or far too many programs "
                "for the interpreter (a tiny BLOCK_SIZE?)",
            ) from None
        if not data:
            raise LearnerError("crashed", self._death())
        try:
            reply = json.loads(data)
        except ValueError:
            reply = None
        if flags & socket.MSG_TRUNC or not isinstance(reply, dict):
            self.stop()
            raise LearnerError("crashed", "the runner sent a reply the judge cannot read.")
        return reply

    def _death(self) -> str:
        returncode = self.process.wait(timeout=30)
        tail = self._output_tail()
        self.stop()
        said = f"\nIt printed, last:\n{tail}" if tail else ""
        meaning = explain(tail)
        return processes.death(returncode) + (f"\n{meaning}" if meaning else "") + said

    def _output_tail(self, limit: int = 2000) -> str:
        path = self.folder / "output.log"
        with open(path, "rb") as f:
            f.seek(max(0, path.stat().st_size - limit))
            return f.read().decode(errors="replace").strip()

    def _classify(self, error: dict) -> tuple[str, str]:
        kind = str(error.get("type", "Exception"))[:100]
        text = str(error.get("message", ""))[:4000].strip()
        if error.get("not_started"):
            return "not_started", text
        line = error.get("line")
        where = ""
        if isinstance(line, int):
            where = f"\n    at {self.shown_as}, line {line}: {str(error.get('code', ''))[:300]}"
        too_big = _too_big(error.get("resources"))
        if too_big:
            return "out_of_resources", too_big
        meaning = explain(text)
        meaning = f"\n{meaning}" if meaning else ""
        fault = "cuda_fault" if error.get("fatal") else "failed"
        return fault, f"your code raised {kind}: {text}{where}{meaning}"

    def _import_failure(self, hello: dict) -> str:
        error = hello.get("error") if isinstance(hello.get("error"), dict) else {}
        kind = str(error.get("type", "Exception"))[:100]
        text = str(error.get("message", ""))[:2000]
        line = error.get("line")
        where = f"\n    at {self.shown_as}, line {line}: {error.get('code', '')}" if line else ""
        return f"importing {self.shown_as} failed: {kind}: {text}{where}"


# New user, pid and mount namespaces (util-linux's unshare): inside, the runner is process 1 and
# sees no process of the grader's, so it can neither find nor signal one, and when it ends the
# kernel ends everything it started. In its mount namespace the repository is read-only and
# solutions/ and tests/ are empty; then it gives up every capability, so it cannot undo that.
NAMESPACES = [
    "unshare",
    "--user",
    "--map-root-user",
    "--mount",
    "--pid",
    "--fork",
    "--mount-proc",
    "--kill-child",
]
CONFINE = (
    'set -e; root="$0"; '
    'mount --bind "$root" "$root"; mount -o remount,bind,ro "$root"; '
    'for hidden in solutions tests; do mount -t tmpfs -o ro,size=4k none "$root/$hidden"; done; '
    'exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs "$@"'
)
_confinement: list[list[str]] = []


def confinement() -> list[str]:
    """The command prefix that runs a runner confined as above, or [] where this machine does
    not allow it (no unshare or setpriv; user namespaces turned off): then the runner runs as
    a plain child, and the integrity guard is what stands between it and the repository."""
    if not _confinement:
        prefix = [*NAMESPACES, "sh", "-c", CONFINE, str(catalog.ROOT)]
        try:
            works = (
                subprocess.run(
                    [*prefix, "true"], capture_output=True, timeout=30, check=False
                ).returncode
                == 0
            )
        except (OSError, subprocess.SubprocessError):
            works = False
        _confinement.append(prefix if works else [])
    return _confinement[0]


def _specs(message: _Message, value):
    if isinstance(value, dict):
        return {k: _specs(message, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_specs(message, v) for v in value]
    return message.spec(value)


# What a runner's environment keeps: enough for torch, triton and a GPU, nothing of the judge's.
_KEPT = ("PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH", "TRITON_INTERPRET", "HOME", "TMPDIR")
_KEPT_PREFIXES = ("CUDA_", "NVIDIA_", "TRITON_", "OMP_", "MKL_")


def runner_environment(folder: Path, sandbox: Sandbox) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEPT or k.startswith(_KEPT_PREFIXES)}
    if sandbox.user:
        # another user cannot write this user's home or caches: everything in the folder
        env |= {"HOME": str(folder), "TMPDIR": str(folder)}
        env["TRITON_CACHE_DIR"] = str(folder / "triton-cache")
    return env


# ---------------------------------------------------------------------------------------------
# The learner's code, as the suites see it
# ---------------------------------------------------------------------------------------------


@dataclass
class Returned:
    """What a call returned, as the runner describes it."""

    type: str
    shape: tuple[int, ...] = ()
    dtype: str = ""
    device: str = ""
    is_out: bool = False
    aliases_buffer: int | None = None

    @classmethod
    def from_reply(cls, reply: dict) -> "Returned":
        r = reply.get("result") if isinstance(reply.get("result"), dict) else {}
        shape = r.get("shape") if isinstance(r.get("shape"), list) else []
        return cls(
            type=str(r.get("type", "?"))[:100],
            shape=tuple(int(s) for s in shape if isinstance(s, int)),
            dtype=str(r.get("dtype", ""))[:50],
            device=str(r.get("device", ""))[:20],
            is_out=r.get("is_out") is True,
            aliases_buffer=r.get("aliases_buffer")
            if isinstance(r.get("aliases_buffer"), int)
            else None,
        )


class LearnerCode:
    """A learner's drill file, read by the judge and run by a runner: `code.add(x, y, out=o)`
    calls `add` in the runner; the source is the judge's own reading of the file."""

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
            self.source, self.source_error = None, LearnerError("import_error", str(e))
        self.runner = Runner(path, shown_as, sandbox or Sandbox(), deadline)

    def __getattr__(self, name: str) -> "RemoteFunction":
        if name.startswith("_"):
            raise AttributeError(name)
        return RemoteFunction(self, name)

    def defines(self, name: str) -> bool:
        return self.source is not None and self.source.defines_function(name)

    def check_readable(self, entry: str) -> None:
        """What the judge can tell from the source alone, before anything runs."""
        if self.source_error:
            raise self.source_error
        if self.source.raises_not_started(entry):
            raise LearnerError("not_started", f"{self.shown_as} still raises NotStarted.")
        escapes = self.source.escapes()
        if escapes:
            listed = "\n".join(f"    {self.shown_as}, {finding}" for finding in escapes[:5])
            raise LearnerError(
                "failed",
                f"{self.shown_as} does what a drill's host code must not, so nothing it computes "
                f"can be graded:\n{listed}\nA host function needs only torch (to allocate, "
                "view and describe tensors) and triton (to launch the kernel).",
            )

    def request(self, op: str, entry: str, **fields) -> dict:
        self.check_readable(entry)
        self.runner.start_once()  # an import error, the runner's to find, comes first
        if not self.source.launches_kernel(entry):
            raise LearnerError(
                "failed",
                f"no Triton kernel launch was found in {entry}() or the functions it calls: "
                "launch your @triton.jit kernel with kernel[grid](...).",
            )
        return self.runner.request(op, self.case_limit, **fields)

    def configs(self) -> dict:
        """The autotune configs of matmul_kernel, as the runner lists them."""
        return self.request("configs", "matmul")

    def probe_grouped_tile(self, num_pid_m: int, num_pid_n: int, group: int) -> list[tuple]:
        """(pid_m, pid_n) of every pid, as the learner's grouped_tile computes them (T4)."""
        total = num_pid_m * num_pid_n
        device = runtime.current().device
        pid_m, pid_n = (shared_empty(total, torch.int32, device) for _ in range(2))
        pid_m.fill_(-1)
        pid_n.fill_(-1)
        self.request(
            "probe",
            "matmul",
            pid_m=pid_m,
            pid_n=pid_n,
            num_pid_m=num_pid_m,
            num_pid_n=num_pid_n,
            group=group,
        )
        return list(zip(pid_m.tolist(), pid_n.tolist(), strict=True))

    def close(self) -> None:
        self.runner.close()


class RemoteFunction:
    def __init__(self, code: LearnerCode, name: str):
        self.code, self.__name__ = code, name

    def call(self, args: list, kwargs: dict, guarded: dict, config: int | None = None) -> dict:
        """Call the function in the runner; the reply, with tensors as views of shared buffers."""
        return self.code.request(
            "call",
            self.__name__,
            fn=self.__name__,
            args=args,
            kwargs=kwargs,
            guarded=guarded,
            config=config,
        )

    def fetch_into(self, into: torch.Tensor) -> None:
        """Copy what the last call returned into a tensor of the judge's."""
        self.code.request("fetch", self.__name__, into=into)
