"""The runner: the only process that imports a learner's file.

Untrusted by design. The judge copies this script and the learner's file into a private folder
and starts `python -E -P runner.py SOCKET_FD LEARNER_FILE LIMITS_JSON` there, so that neither
the repository nor anything else of the grader is importable. Everything the runner reports
(the result's description, the kernel launches, the torch operations, the reads of padding) is
a claim the judge weighs; the values in the buffers, which the judge owns, are what it checks.

Standard library, torch, triton and numpy only: this file must not import the `drills` package.

Protocol: one JSON object per SOCK_SEQPACKET message, with the file descriptors of CPU buffers
attached. The judge sends an op, the runner answers {"ok": true, ...} or {"ok": false, "error":
{...}}. Tensors travel as specs: {"buffer": id, "dtype", "shape", "stride", "offset"}, views
into buffers the judge made and shares (memfd on the CPU, CUDA IPC on a GPU).
"""

import base64
import contextlib
import importlib.util
import json
import mmap
import os
import pickle
import resource
import socket
import sys
import traceback
import types

import torch
import triton
import triton.language as tl
from triton.runtime.jit import mangle_type
from triton.tools.tensor_descriptor import TensorDescriptor

INTERPRETING = os.environ.get("TRITON_INTERPRET") == "1"
ON_GPU = not INTERPRETING and torch.cuda.is_available()
MAX_MESSAGE = 1 << 20
MAX_LAUNCHES = 200  # a learner's loop of launches is summarised, not sent whole
MAX_OPS = 200


# ---------------------------------------------------------------------------------------------
# Before anything of the learner's: limits, and the one name a stub imports from the repo
# ---------------------------------------------------------------------------------------------


def apply_limits(limits: dict) -> None:
    """Soft and hard limits the learner's code cannot raise again (unless it runs as root)."""
    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (value, value))


class NotStarted(Exception):
    """Raised by an untouched stub (the same message as drills.NotStarted)."""

    def __init__(self, drill: str = ""):
        where = f" (mine/{drill}.py)" if drill else ""
        super().__init__(f"this drill has not been started yet{where}")


def provide_drills_module() -> None:
    """Stubs say `from drills import NotStarted`: give them that name, and nothing else."""
    shim = types.ModuleType("drills")
    shim.NotStarted = NotStarted
    sys.modules["drills"] = shim


# ---------------------------------------------------------------------------------------------
# The interpreter, made to run what a GPU runs
# ---------------------------------------------------------------------------------------------


# The device the interpreter stands in for code that sizes its grid from the hardware (Triton's
# tutorial 02 and 09 do): Hopper's per-block limits, and few SMs so that persistent grids stay
# small. Nothing compiles on the interpreter, so a warmup() reports nominal figures.
NOMINAL_DEVICE = {
    "multiprocessor_count": 4,
    "max_num_regs": 65536,
    "max_shared_mem": 232448,
    "warpSize": 32,
}
NOMINAL_KERNEL = {"n_regs": 32, "n_spills": 0, "shared": 1024}


class NominalDriver:
    """triton.runtime.driver.active where triton finds none (the CPU): what the tutorials read."""

    class utils:
        @staticmethod
        def get_device_properties(device=None) -> dict:
            return dict(NOMINAL_DEVICE)

    @staticmethod
    def get_active_torch_device():
        return torch.device("cpu")

    @staticmethod
    def get_current_device() -> int:
        return 0

    @staticmethod
    def get_current_target():
        from triton.backends.compiler import GPUTarget

        return GPUTarget("cuda", 90, 32)

    @staticmethod
    def get_benchmarker():
        """The interpreter has nothing to time: every config ties, so the autotuner keeps the
        first of its list, without running the others."""

        def untimed(kernel_call, quantiles=None, **options):
            return [1.0] * len(quantiles) if quantiles else 1.0

        return untimed


class InterpretedLaunch:
    """What warmup() returns on the interpreter (triton's own returns None): the figures a host
    reads (nominal), and [grid](*args) that runs the kernel through the interpreter."""

    def __init__(self, kernel, options: dict):
        self.kernel = kernel
        self.name = kernel.__name__
        self.n_regs, self.n_spills = NOMINAL_KERNEL["n_regs"], NOMINAL_KERNEL["n_spills"]
        self.metadata = types.SimpleNamespace(
            shared=NOMINAL_KERNEL["shared"],
            num_warps=options.get("num_warps", 4),
            num_stages=options.get("num_stages", 3),
        )

    def _init_handles(self) -> None:
        """Loading onto a device: nothing to load here."""

    def __getitem__(self, grid):
        def launch(*args):
            return self.kernel.run(*args, grid=grid, warmup=False)

        return launch


def is_constexpr(annotation) -> bool:
    """JITFunction's own test: `tl.constexpr`, or a string that names it (`"tl.constexpr"`, or
    any annotation under `from __future__ import annotations`)."""
    from triton.runtime.jit import _normalize_ty

    return "constexpr" in _normalize_ty(annotation)


def tensor_range(start, end=None, step=None, **options):
    """tl.range as a GPU runs it: the loop variable is a scalar tensor (`row.to(tl.int64)`
    works), where the interpreter's own gives Python ints. tl.static_range keeps ints."""
    from triton.runtime.interpreter import _implicit_cvt

    bounds = (0, start) if end is None else (start, end)
    for i in range(*(int(b) for b in bounds), 1 if step is None else int(step)):
        yield _implicit_cvt(i)


def adapt_interpreter() -> None:
    """Where triton's interpreter parts ways with its GPU path, follow the GPU path: a string
    annotation still makes a constexpr, tl.range counts in tensors, warmup() returns something
    to launch, and a driver exists. Before the learner's file is imported, since it may read
    the driver at import."""
    import inspect

    from triton.runtime import driver, interpreter
    from triton.runtime.interpreter import GridExecutor, InterpretedFunction

    executor_init, interpreted_run = GridExecutor.__init__, InterpretedFunction.run
    patch_lang, unpatched_range = interpreter._patch_lang, tl.range

    def patch_lang_with_tensor_range(fn):
        scope = patch_lang(fn)  # triton 3.8 restores what it patched; earlier ones did not
        for lang in (tl, tl.core):
            if lang.range is not unpatched_range:
                if scope is None:
                    lang.range = tensor_range
                else:
                    scope.set_attr(lang, "range", tensor_range)
        return scope

    def init(self, fn, arg_names, grid, *rest, **kwargs):
        executor_init(self, fn, arg_names, grid, *rest, **kwargs)
        annotations = inspect.get_annotations(fn)
        self.constexprs = [
            name for name in arg_names if name in annotations and is_constexpr(annotations[name])
        ]

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return InterpretedLaunch(self, kwargs)
        return interpreted_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    GridExecutor.__init__, InterpretedFunction.run = init, run
    interpreter._patch_lang = patch_lang_with_tensor_range
    try:
        driver.active  # noqa: B018 - a backend that finds a device is kept
    except RuntimeError:
        driver.set_active(NominalDriver())


class FirstConfigThatRuns:
    """The benchmarker autotuning gets while grading on a GPU. Grading needs a right result,
    not the fastest config, and timing every config at every new key cost T4 most of its
    grading time. So each autotuning round runs its configs in list order until one works and
    reports that one as the fastest; the rest are neither timed nor compiled. A config that
    cannot load raises OutOfResources here, which the autotuner counts as infinitely slow, as
    it does when it times."""

    FASTEST, SLOWER = 0.0, 1.0

    def __init__(self):
        self.found = False

    def __call__(self, kernel_call, quantiles=None, **options):
        if not self.found:
            kernel_call()
            self.found = True
            time = self.FASTEST
        else:
            time = self.SLOWER
        return [time] * len(quantiles) if quantiles else time


def autotune_without_timing() -> None:
    """On a GPU: every autotuning round starts a new FirstConfigThatRuns search."""
    from triton.runtime import driver
    from triton.runtime.autotuner import Autotuner

    benchmarker = FirstConfigThatRuns()
    autotuner_run = Autotuner.run

    def run(self, *args, **kwargs):
        benchmarker.found = False
        return autotuner_run(self, *args, **kwargs)

    Autotuner.run = run
    driver.active.get_benchmarker = lambda: benchmarker


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


def send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message, default=repr).encode()
    if len(data) > MAX_MESSAGE:
        data = json.dumps(
            {"ok": False, "error": {"type": "RunnerError", "message": "reply too large"}}
        ).encode()
    sock.sendmsg([data])


def receive(sock: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 64)
    if not data:
        sys.exit(0)  # the judge is gone
    return json.loads(data), fds


# ---------------------------------------------------------------------------------------------
# Buffers the judge shares, and views into them
# ---------------------------------------------------------------------------------------------


def dtype_of(name: str):
    return getattr(torch, name)


def open_buffers(table: list[dict], fds: list[int]) -> dict:
    """Map the judge's buffers: CPU ones from their memfd, GPU ones from their CUDA IPC handle."""
    buffers, fds = {}, list(fds)
    for entry in table:
        if entry["ipc"] is None:
            fd = fds.pop(0)
            mapped = mmap.mmap(fd, entry["nbytes"])
            os.close(fd)
            raw = torch.frombuffer(mapped, dtype=torch.uint8)
        else:
            rebuild, args = pickle.loads(base64.b64decode(entry["ipc"]))
            raw = rebuild(*args)
        buffers[entry["id"]] = raw.view(dtype_of(entry["dtype"]))
    return buffers


def view(buffers: dict, spec: dict):
    return buffers[spec["buffer"]].as_strided(spec["shape"], spec["stride"], spec["offset"])


def materialise(value, buffers: dict):
    """A spec becomes a tensor view; plain JSON values stay as they are."""
    if isinstance(value, dict) and "buffer" in value:
        return view(buffers, value)
    return value


# ---------------------------------------------------------------------------------------------
# Evidence: launches, torch operations outside them, loads from the padding (interpreter)
# ---------------------------------------------------------------------------------------------

# What a correct host function may ask of torch: allocation, views and metadata. Anything else
# outside a kernel launch computes (or copies) with torch.
ALLOWED_TORCH_OPS = frozenset(
    [
        "empty",
        "empty_like",
        "empty_strided",
        "new_empty",
        "new_empty_strided",
        "zeros",
        "zeros_like",
        "new_zeros",
        "ones",
        "ones_like",
        "new_ones",
        "full",
        "full_like",
        "new_full",
        "fill_",
        "zero_",
        "view",
        "_unsafe_view",
        "as_strided",
        "t",
        "transpose",
        "permute",
        "expand",
        "unsqueeze",
        "squeeze",
        "select",
        "slice",
        "narrow",
        "alias",
        "detach",
        "_reshape_alias",
        "split",
        "split_with_sizes",
        "chunk",
        "unbind",
        "unflatten",
        "size",
        "stride",
        "sym_size",
        "sym_stride",
        "sym_numel",
        "sym_storage_offset",
        "numel",
        "dim",
        "is_contiguous",
        "is_same_size",
        "lift_fresh",
        "_has_compatible_shallow_copy_type",
    ]
)


class Evidence:
    def __init__(self):
        self.launches: list[dict] = []
        self.launch_count = 0
        self.torch_ops: list[str] = []
        self.in_launch = 0
        self.tensor_ids: dict[int, int] = {}  # storage data_ptr -> buffer id

    def describe(self, value):
        if isinstance(value, torch.Tensor):
            return {
                "tensor": str(value.dtype).removeprefix("torch."),
                "buffer": self.tensor_ids.get(value.untyped_storage().data_ptr()),
            }
        if isinstance(value, TensorDescriptor):
            return {
                "descriptor": mangle_type(value),  # "tensordesc<fp16[64, 32]>"
                "buffer": self.tensor_ids.get(value.base.untyped_storage().data_ptr()),
            }
        if isinstance(value, tl.constexpr):  # a launch may pass tl.constexpr(64) itself
            value = value.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, torch.dtype):
            return {"dtype": str(value).removeprefix("torch.")}
        name = getattr(value, "name", None)  # a triton dtype given as a constexpr
        return {"dtype": name} if isinstance(name, str) else {"repr": repr(value)[:200]}

    def record(self, kernel: str, arg_names, args, kwargs, grid) -> None:
        self.launch_count += 1
        if len(self.launches) >= MAX_LAUNCHES:
            return
        named = dict(zip(arg_names, args, strict=False)) | kwargs
        shape = grid(named) if callable(grid) else grid
        self.launches.append(
            {
                "kernel": kernel,
                "grid": [int(g) for g in (shape if isinstance(shape, (tuple, list)) else (shape,))],
                "args": {name: self.describe(value) for name, value in named.items()},
            }
        )

    @contextlib.contextmanager
    def launching(self):
        self.in_launch += 1
        try:
            yield
        finally:
            self.in_launch -= 1


def install_launch_hooks(evidence_of) -> None:
    """Record every launch: JITFunction.run (jit, autotuned and heuristics kernels on a GPU), a
    compiled kernel's [grid] (what warmup() returns), and the interpreter's GridExecutor."""
    from triton.compiler.compiler import CompiledKernel
    from triton.runtime.interpreter import GridExecutor
    from triton.runtime.jit import JITFunction

    jit_run, interpret_call, compiled_getitem = (
        JITFunction.run,
        GridExecutor.__call__,
        CompiledKernel.__getitem__,
    )

    def run(self, *args, grid, warmup, **kwargs):
        evidence = evidence_of()
        if not warmup:
            evidence.record(self.__name__, self.arg_names, args, kwargs, grid)
        with evidence.launching():
            return jit_run(self, *args, grid=grid, warmup=warmup, **kwargs)

    def call(self, *args, **kwargs):
        evidence = evidence_of()
        evidence.record(self.fn.__name__, self.arg_names, args, kwargs, self.grid)
        with evidence.launching():
            return interpret_call(self, *args, **kwargs)

    def getitem(self, grid):
        launch = compiled_getitem(self, grid)

        def runner(*args, **kwargs):
            evidence = evidence_of()
            names = getattr(getattr(self.src, "fn", None), "arg_names", [])
            evidence.record(self.name, names, args, {}, grid)
            with evidence.launching():
                return launch(*args, **kwargs)

        return runner

    JITFunction.run, GridExecutor.__call__ = run, call
    CompiledKernel.__getitem__ = getitem


def torch_spy(evidence: "Evidence"):
    from torch.utils._python_dispatch import TorchDispatchMode

    class TorchSpy(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            name = func.overloadpacket.__name__
            noted = evidence.in_launch or name in ALLOWED_TORCH_OPS or name in evidence.torch_ops
            if not noted and len(evidence.torch_ops) < MAX_OPS:
                evidence.torch_ops.append(name)
            return func(*args, **(kwargs or {}))

    return TorchSpy()


@contextlib.contextmanager
def reads_outside(guarded: dict, found: dict):
    """On the interpreter, note the loads that read a guarded tensor's padding: a load past the
    end of an input whose lanes are never stored leaves the result right, so no canary sees it."""
    if not INTERPRETING or not guarded:
        yield
        return
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    regions = []
    for name, (base, spec) in guarded.items():
        inside = torch.zeros(base.numel(), dtype=torch.bool)
        inside.as_strided(spec["shape"], spec["stride"], spec["offset"]).fill_(True)
        regions.append((name, base.data_ptr(), base.element_size(), inside.numpy(), spec["offset"]))
        found[name] = set()
    original = InterpreterBuilder.create_masked_load

    def checked_load(self, ptrs, mask, *rest, **options):
        addresses = ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape).astype(bool)]
        for name, start, size, inside, first in regions:
            element = (addresses[addresses >= start] - start) // size
            element = element[element < inside.size]
            found[name].update((element[~inside[element]] - first).tolist())
        return original(self, ptrs, mask, *rest, **options)

    InterpreterBuilder.create_masked_load = checked_load
    try:
        yield
    finally:
        InterpreterBuilder.create_masked_load = original


# ---------------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------------


class Runner:
    def __init__(self, module, learner_file: str):
        self.module = module
        self.learner_file = learner_file
        self.evidence = Evidence()
        self.result = None
        self.buffers = None
        install_launch_hooks(lambda: self.evidence)

    def entry(self, name: str):
        fn = getattr(self.module, name, None)
        if fn is None:
            raise AttributeError(f"{os.path.basename(self.learner_file)} defines no {name}")
        return fn

    def op_call(self, message: dict, buffers: dict) -> dict:
        fn = self.entry(message["fn"])
        args = [materialise(a, buffers) for a in message["args"]]
        kwargs = {k: materialise(v, buffers) for k, v in message["kwargs"].items()}
        guarded = {
            name: (buffers[spec["buffer"]], spec) for name, spec in message["guarded"].items()
        }
        self.evidence = Evidence()
        self.evidence.tensor_ids = {b.untyped_storage().data_ptr(): i for i, b in buffers.items()}
        reads: dict[str, set] = {}
        with self.forced_config(message.get("config")), reads_outside(guarded, reads):
            with torch_spy(self.evidence):
                result = fn(*args, **kwargs)
            if ON_GPU:
                torch.cuda.synchronize()  # a fault of this call is reported as this call's
        self.result = result
        return {
            "result": self.describe_result(result, kwargs.get("out"), buffers),
            "launches": self.evidence.launches,
            "launch_count": self.evidence.launch_count,
            "torch_ops": self.evidence.torch_ops,
            "reads_outside": {name: sorted(found)[:1000] for name, found in reads.items()},
            "reads_outside_count": {name: len(found) for name, found in reads.items()},
        }

    @contextlib.contextmanager
    def forced_config(self, index):
        """Autotune over one config of the learner's list only (a GPU tries every config)."""
        if index is None:
            yield
            return
        kernel = self.entry("matmul_kernel")
        configs = kernel.configs
        kernel.configs = [configs[index]]
        kernel.cache.clear()
        try:
            yield
        finally:
            kernel.configs = configs
            kernel.cache.clear()

    def describe_result(self, result, out, buffers: dict) -> dict:
        if not isinstance(result, torch.Tensor):
            return {"type": type(result).__name__}
        storage = result.untyped_storage().data_ptr()
        aliases = [i for i, b in buffers.items() if b.untyped_storage().data_ptr() == storage]
        return {
            "type": "Tensor",
            "shape": list(result.shape),
            "dtype": str(result.dtype).removeprefix("torch."),
            "device": result.device.type,
            "is_out": out is not None and result.data_ptr() == out.data_ptr(),
            "aliases_buffer": aliases[0] if aliases else None,
        }

    def op_fetch(self, message: dict, buffers: dict) -> dict:
        """Copy the tensor the last call returned into a buffer of the judge's."""
        view(buffers, message["into"]).copy_(self.result)
        return {}

    def op_configs(self, message: dict, buffers: dict) -> dict:
        kernel = getattr(self.module, "matmul_kernel", None)
        configs = getattr(kernel, "configs", None)
        if configs is None:
            return {"autotuned": False, "configs": []}
        return {"autotuned": True, "configs": [str(c) for c in configs]}

    def op_probe(self, message: dict, buffers: dict) -> dict:
        """Run the learner's grouped_tile for every pid of a grid of tiles (T4)."""
        global grouped_tile
        grouped_tile = self.entry("grouped_tile")
        pid_m, pid_n = view(buffers, message["pid_m"]), view(buffers, message["pid_n"])
        probe_kernel[(pid_m.numel(),)](
            pid_m, pid_n, message["num_pid_m"], message["num_pid_n"], GROUP_SIZE_M=message["group"]
        )
        return {}

    def handle(self, message: dict, fds: list[int]) -> dict:
        # the buffers stay mapped until the reply is sent: after a CUDA fault, releasing an IPC
        # buffer can crash this process, and the judge would never hear why
        self.buffers = open_buffers(message.get("buffers", []), fds)
        try:
            reply = getattr(self, "op_" + message["op"])(message, self.buffers)
            if ON_GPU:
                # what a kernel or a copy wrote is the judge's to read once the reply arrives
                torch.cuda.synchronize()
            return {"ok": True, **reply}
        except BaseException as e:  # noqa: BLE001 - whatever the learner's code raises goes back
            return {"ok": False, "error": describe_error(e, self.learner_file)}


grouped_tile = None  # the learner's helper, set before probe_kernel first runs


@triton.jit
def probe_kernel(pid_m_ptr, pid_n_ptr, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)
    tl.store(pid_m_ptr + pid, pid_m)
    tl.store(pid_n_ptr + pid, pid_n)


def describe_error(e: BaseException, learner_file: str) -> dict:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == learner_file]
    where = frames[-1] if frames else None
    return {
        "type": type(e).__name__,
        "message": str(e)[:4000],
        "not_started": isinstance(e, NotStarted),
        "syntax_line": getattr(e, "lineno", None) if isinstance(e, SyntaxError) else None,
        "line": where.lineno if where else None,
        "code": (where.line or "").strip()[:300] if where else "",
        "fatal": is_fatal(e),
        "resources": resources_of(e),
    }


def resources_of(e: BaseException) -> dict | None:
    """What a kernel needed and the GPU has, when it could not be loaded (OutOfResources)."""
    from triton.runtime.errors import OutOfResources

    if not isinstance(e, OutOfResources):
        return None
    return {"name": str(e.name), "required": int(e.required), "limit": int(e.limit)}


def is_fatal(e: BaseException) -> bool:
    """A CUDA fault leaves this process's context unusable: the judge starts a fresh runner."""
    text = str(e).lower()
    return any(
        s in text
        for s in ("cuda error", "illegal memory access", "unspecified launch failure", "misaligned")
    )


def import_learner_file(path: str):
    spec = importlib.util.spec_from_file_location("learner", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["learner"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    sock_fd, learner_file, limits = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
    apply_limits(limits)
    sock = socket.socket(fileno=sock_fd)
    provide_drills_module()
    if INTERPRETING:
        adapt_interpreter()
    elif ON_GPU:
        autotune_without_timing()
    try:
        module = import_learner_file(learner_file)
        runner = Runner(module, learner_file)
    except BaseException as e:  # noqa: BLE001 - an import failure is the learner's to read
        send(sock, {"ok": False, "error": describe_error(e, learner_file)})
        return 0
    send(sock, {"ok": True, "ready": True})
    while True:
        message, fds = receive(sock)
        reply = runner.handle(message, fds)
        send(sock, reply)
        if not reply["ok"] and reply["error"]["fatal"]:
            os._exit(0)  # a CUDA fault: no clean-up can work, and the judge has the reply
        runner.buffers = None


if __name__ == "__main__":
    sys.exit(main())
