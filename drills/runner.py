"""The runner: the only process that imports a learner's file.

Untrusted by design. The judge copies this script and the learner's file into a private folder
and runs it there as `python -E -P runner.py SOCKET_FD LEARNER_FILE` would, in a process forked
from its fork server's clean image (drills/judge/forks.py), confined, limited and unable to
start a process before this script runs, so that neither the repository nor anything else of
the grader is importable.

The runner never holds the judge's inputs, and never runs a kernel. It makes stand-ins of the
judge's buffers (same sizes and dtypes, random values, its own memory), calls the learner's host
function on views of them, and writes down what the call asks for: every kernel launch (which
@triton.jit function, the grid, each argument, constexprs and launch options), and the data
movement around the launches (allocations, fills, copies). Every other torch operation is
written down as host computation, and what it wrote as unknown. The judge then runs the
learner's kernels itself, from its own reading of the file, on its own inputs, following that
record (drills/judge/executor.py): nothing the host code computes reaches a buffer that is graded.

Standard library, torch, triton and numpy only: this file must not import the `drills` package.

Protocol: one JSON object per SOCK_SEQPACKET message. The judge sends an op, the runner answers
{"ok": true, ...} or {"ok": false, "error": {...}}. A tensor travels as a spec: {"ref": "b3"
(a stand-in of the judge's buffer 3) or "t5" (a temporary the host allocated), "dtype",
"shape", "stride", "offset"}.
"""

import contextlib
import importlib.util
import json
import os
import socket
import sys
import traceback
import types

import torch
import triton
import triton.language as tl
from triton.runtime.interpreter import InterpretedFunction
from triton.runtime.jit import JITFunction, mangle_type
from triton.tools.tensor_descriptor import TensorDescriptor

INTERPRETING = os.environ.get("TRITON_INTERPRET") == "1"
ON_GPU = not INTERPRETING and torch.cuda.is_available()
MAX_MESSAGE = 4 << 20
# A call that asks for more than this is not graded: a drill needs a few launches and copies.
MAX_STEPS = 2000
MAX_NOTED = 50  # host computations named in a reply
MAX_RESULTS = 8  # tensors of a returned tuple described one by one
MAX_TUPLE = 16  # items of a tuple a launch passes as one argument
# Elements of tensors made from Python values (torch.tensor([...]), arange) sent by value in one
# call: a table of sizes, offsets or pointers is small
MAX_VALUES = 1 << 16


# ---------------------------------------------------------------------------------------------
# Before anything of the learner's: limits, and the one name a stub imports from the repo
# ---------------------------------------------------------------------------------------------


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
# Triton, made to write launches down instead of running them
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
# torch.cuda.get_device_properties() of that device, with the fields host code reads
NOMINAL_PROPERTIES = types.SimpleNamespace(
    name="the interpreter's nominal sm_90 device",
    major=9,
    minor=0,
    multi_processor_count=NOMINAL_DEVICE["multiprocessor_count"],
    warp_size=NOMINAL_DEVICE["warpSize"],
    regs_per_multiprocessor=NOMINAL_DEVICE["max_num_regs"],
    shared_memory_per_block_optin=NOMINAL_DEVICE["max_shared_mem"],
    max_threads_per_multi_processor=2048,
    L2_cache_size=50 << 20,
    total_memory=80 << 30,
)


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
        return untimed


def answer_torch_cuda_for_the_nominal_device() -> None:
    """Where there is no GPU, torch.cuda's questions about the device get the nominal device's
    answers, synchronize() returns at once (the interpreter has finished every launch by then)
    and torch.cuda.device() switches nothing: host code written for a GPU (tutorial 09's SM
    count, a synchronize before it returns) runs here as it does there.
    torch.cuda.is_available() still says False, and every tensor stays on the CPU."""
    torch.cuda.get_device_properties = lambda device=None: NOMINAL_PROPERTIES
    capability = (NOMINAL_PROPERTIES.major, NOMINAL_PROPERTIES.minor)
    torch.cuda.get_device_capability = lambda device=None: capability
    torch.cuda.get_device_name = lambda device=None: NOMINAL_PROPERTIES.name
    torch.cuda.synchronize = lambda device=None: None
    torch.cuda.current_device = lambda: 0
    # `with torch.cuda.device(x.device):` around a launch, as library wrappers write: the
    # interpreter has no device to switch to
    torch.cuda.device = lambda device=None: contextlib.nullcontext()


class Untimed:
    """The autotuner's benchmarker here: every config ties, and the autotuner keeps the first
    of its list (after its own pruning). The judge, which runs the kernels, moves on to the
    next config when one cannot load on its GPU. Nothing runs, unless the call is one that
    shows what a GPU's benchmarking leaves: then each config runs once, on the call's own
    tensors, with its hooks, as autotune times it there on the first call of a shape."""

    runs_each_config = False
    timing = False  # a launch made now is one of those timing runs

    def __call__(self, kernel_call, quantiles=None, **options):
        if self.runs_each_config:
            self.timing = True
            try:
                kernel_call()
            finally:
                self.timing = False
        return [1.0] * len(quantiles) if quantiles else 1.0

    @contextlib.contextmanager
    def running_each_config(self, wanted: bool):
        self.runs_each_config = bool(wanted)
        try:
            yield
        finally:
            self.runs_each_config = False


untimed = Untimed()


def timed_without_a_disk_cache(self, tuning_key, configs, bench_fn) -> bool:
    """Autotune's disk cache of timings (cache_results=True), never read or written: its
    timings here are ties, a winner read from it would skip the timing runs the judge watches,
    and its key runs ptxas, a process a runner cannot start."""
    bench_fn()
    return False


def given_config(fields: dict) -> triton.Config:
    """A config the judge describes: constexpr values and launch options, all plain."""
    kwargs, warps, stages = fields.get("kwargs"), fields.get("num_warps"), fields.get("num_stages")
    plain = (int, float, bool, str)
    if not (
        isinstance(kwargs, dict)
        and all(isinstance(k, str) and isinstance(v, plain) for k, v in kwargs.items())
        and isinstance(warps, int)
        and isinstance(stages, int)
    ):
        raise ValueError(f"a config the runner cannot make: {fields!r:.200}")
    return triton.Config(kwargs, num_warps=warps, num_stages=stages)


def autotuner_of(value):
    """The @triton.autotune under `value`, through @triton.heuristics stacked on either side
    of it (both legal orders); None when there is none."""
    from triton.runtime.autotuner import Autotuner

    while hasattr(value, "fn") and not isinstance(value, Autotuner):
        value = value.fn
    return value if isinstance(value, Autotuner) else None


def module_values(module) -> list:
    """The module's top-level values, and the values one level inside its classes, dicts and
    namespaces: where a file keeps its kernels (Kernels.matmul, KERNELS["matmul"])."""
    values = list(vars(module).values())
    for value in list(values):
        if isinstance(value, dict):
            values += list(value.values())
        elif isinstance(value, (type, types.SimpleNamespace)):
            values += list(vars(value).values())
    return values


def autotuners(module) -> dict:
    """The module's autotuned kernels by the name of the function under them (the name a launch
    records), whatever names the module gives them (an alias, matmul_kernel = kernel_fma; a
    class attribute)."""
    found = {}
    for value in module_values(module):
        autotuner = autotuner_of(value)
        if autotuner is not None:
            found.setdefault(autotuner.base_fn.__name__, autotuner)
    return found


class PrunedAway(Exception):
    """The config the judge asked a call to run is one the kernel's own pruning
    (prune_configs_by) removes for this call: autotune would never run it here."""


def forget_timings(module) -> None:
    """Every autotuned kernel of the module as before its first call, so that the next call
    times its configs again, whatever shapes earlier cases called it with."""
    for value in module_values(module):
        autotuner = autotuner_of(value)
        if autotuner is not None:
            autotuner.cache.clear()


class Respecialized(Exception):
    """A launch through what warmup(...) compiled, of arguments the compiled kernel was not
    made for: on a GPU it runs the code of the warmup's arguments."""


def specialized(value) -> str | None:
    """What triton compiles a kernel for, of one argument that it specializes on: whether an
    integer is 1 or a multiple of 16, whether a tensor's address is a multiple of 16 bytes."""
    if isinstance(value, torch.Tensor):
        return "16-byte aligned" if value.data_ptr() % 16 == 0 else "not 16-byte aligned"
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if value == 1:
        return "1"
    return "a multiple of 16" if value % 16 == 0 else "neither 1 nor a multiple of 16"


class Warmed:
    """What kernel.warmup(...) returns: the figures a host reads to size its grid (nominal
    ones: nothing is compiled here), and [grid](*args), a launch of the kernel with the
    constexprs and options the warmup was given, which must be of arguments the warmup's
    compile fits (Respecialized)."""

    def __init__(self, kernel, args: tuple, options: dict):
        self.kernel, self.options = kernel, options
        self.warmed = dict(zip(kernel.arg_names, args, strict=False)) | options
        self.name = kernel.__name__
        self.n_regs, self.n_spills = NOMINAL_KERNEL["n_regs"], NOMINAL_KERNEL["n_spills"]
        self.metadata = types.SimpleNamespace(
            shared=NOMINAL_KERNEL["shared"],
            num_warps=options.get("num_warps", 4),
            num_stages=options.get("num_stages", 3),
        )

    def _init_handles(self) -> None:
        """Loading onto a device: nothing to load."""

    def __getitem__(self, grid):
        def launch(*args):
            named = dict(zip(self.kernel.arg_names, args, strict=False))
            changed = self.respecialized(named)
            if changed:
                raise Respecialized(
                    f"{self.name}[grid](...) launched what {self.name}.warmup(...) compiled, "
                    f"for other arguments: {changed}. Triton compiles a kernel for its "
                    "constexprs, for whether each integer is 1 or a multiple of 16 and for "
                    "whether each tensor's address is: on a GPU that kernel runs wrong on these. "
                    f"Warm up for the arguments you launch with (or launch {self.name}[grid]"
                    "(...), which compiles what each launch needs)."
                )
            kept = {k: v for k, v in self.options.items() if k not in named and k != "grid"}
            return self.kernel.run(grid=grid, warmup=False, **named, **kept)

        return launch

    def respecialized(self, named: dict) -> str:
        """How the launch's arguments differ from the warmup's where the compile depends on
        them, or ""."""
        fn = getattr(self.kernel, "fn", self.kernel)
        params = self.kernel.params if hasattr(self.kernel, "params") else JITFunction(fn).params
        for param in params:
            if param.name not in named or param.name not in self.warmed:
                continue
            then, now = self.warmed[param.name], named[param.name]
            if param.is_constexpr and then != now:
                return f"{param.name} was {then!r} there and is {now!r} here"
            was, is_now = specialized(then), specialized(now)
            specializing = not param.is_constexpr and not param.do_not_specialize
            if specializing and was and is_now and was != is_now:
                return f"{param.name} was {was} there ({then}) and is {is_now} here ({now})"
        return ""


def record_launches(trace_of) -> None:
    """Every launch of a @triton.jit function (plain, autotuned, heuristics, through warmup or
    .run) is written into the current trace instead of being run: the judge runs it."""

    def run(self, *args, grid, warmup, **kwargs):
        if warmup:
            return Warmed(self, args, kwargs)
        trace_of().launch(self, args, kwargs, grid)
        return None

    JITFunction.run = InterpretedFunction.run = run


def prepare_triton() -> None:
    """Before the learner's file is imported (it may read the driver at import): a driver
    where triton finds none, and an autotuner that times nothing."""
    from triton.runtime import driver
    from triton.runtime.autotuner import Autotuner

    try:
        # reading an attribute makes the driver (triton makes it lazily, on first
        # use): a backend that finds a device is kept
        driver.active.get_benchmarker  # noqa: B018
    except RuntimeError:
        driver.set_active(NominalDriver())
        answer_torch_cuda_for_the_nominal_device()
    driver.active.get_benchmarker = lambda: untimed
    # and however a kernel asks autotune to time (warmup=, rep=, use_cuda_graph=, do_bench=),
    # which would time with triton.testing's benchmarkers rather than the driver's
    Autotuner.do_bench = property(lambda self: untimed)
    Autotuner.check_disk_cache = timed_without_a_disk_cache
    if ON_GPU:  # its CUDA context, made while the judge makes its own (drills/judge/executor.py)
        torch.empty(1, device="cuda")


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


def receive(sock: socket.socket) -> dict:
    data = sock.recv(MAX_MESSAGE)
    if not data:
        sys.exit(0)  # the judge is gone
    return json.loads(data)


# ---------------------------------------------------------------------------------------------
# Stand-ins for the judge's buffers
# ---------------------------------------------------------------------------------------------


def dtype_of(name: str) -> torch.dtype:
    dtype = getattr(torch, name, None)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"not a dtype: {name}")
    return dtype


def stand_ins(table: list[dict], device: str) -> dict[str, torch.Tensor]:
    """A buffer of the runner's own for each of the judge's, of the same size and dtype, with
    random values: host code sees real-looking data, and none of the judge's."""
    generator = torch.Generator(device=device).manual_seed(int.from_bytes(os.urandom(4), "little"))
    buffers = {}
    for entry in table:
        dtype, numel = dtype_of(entry["dtype"]), int(entry["numel"])
        buffer = torch.empty(max(numel, 1), dtype=dtype, device=device)[:numel]
        if dtype.is_floating_point:
            buffer.normal_(generator=generator)
        elif dtype == torch.bool:
            buffer.random_(0, 2, generator=generator)
        else:
            buffer.random_(-1000, 1000, generator=generator)
        buffers[entry["ref"]] = buffer
    return buffers


LARGE_STAND_INS = 1 << 30  # bytes


def stand_in_bytes(message: dict) -> int:
    """How much memory the stand-ins of a request's buffers take."""
    return sum(
        int(entry["numel"]) * dtype_of(entry["dtype"]).itemsize
        for entry in message.get("buffers", [])
    )


def view(buffers: dict, spec: dict) -> torch.Tensor:
    base = buffers[spec["ref"]]
    return base.as_strided(spec["shape"], spec["stride"], spec["offset"])


def materialise(value, buffers: dict):
    """A spec becomes a view of a stand-in; plain JSON values stay as they are."""
    if isinstance(value, dict) and "ref" in value:
        return view(buffers, value)
    return value


# ---------------------------------------------------------------------------------------------
# The trace: what a call asks the judge to do
# ---------------------------------------------------------------------------------------------

# torch operations that make a tensor, and the value they fill it with
ALLOCATIONS = {
    "empty": None,
    "empty_like": None,
    "empty_strided": None,
    "new_empty": None,
    "new_empty_strided": None,
    "zeros": 0,
    "zeros_like": 0,
    "new_zeros": 0,
    "ones": 1,
    "ones_like": 1,
    "new_ones": 1,
    "full": "fill_value",
    "full_like": "fill_value",
    "new_full": "fill_value",
}
# operations that make a new tensor holding a copy of their first argument (maybe converted)
COPIES = frozenset(["clone", "_to_copy", "contiguous", "_copy_from", "to"])
# operations that only describe or view tensors: nothing to write down
VIEWS = frozenset(
    """view _unsafe_view as_strided t transpose permute expand unsqueeze squeeze select slice
    narrow alias detach _reshape_alias split split_with_sizes chunk unbind unflatten size stride
    sym_size sym_stride sym_numel sym_storage_offset numel dim is_contiguous is_same_size
    _has_compatible_shallow_copy_type reshape view_as expand_as flatten
    set_ resize_""".split()
)


def tensors_in(value) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_in(v)]
    return []


def plain_number(value):
    """A fill value the judge can repeat: a Python number (or a 0-d tensor of the runner's own
    making is host data, and not repeatable)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    return None


class Trace:
    def __init__(self, buffers: dict[str, torch.Tensor]):
        self.refs = {t.untyped_storage().data_ptr(): ref for ref, t in buffers.items()}
        # where each tensor the judge knows lies in this process: (first address, bytes)
        self.spans = {
            ref: (t.untyped_storage().data_ptr(), t.untyped_storage().nbytes())
            for ref, t in buffers.items()
            if t.untyped_storage().nbytes()
        }
        self.pointed: set[str] = set()  # the tensors whose addresses a table holds
        self.values_sent = 0
        # the tensors whose every value came from Python values (sent by value, filled with a
        # number, or computed by torch from such tensors alone): no judge's input is in them
        self.known: set[str] = set()
        self.steps: list[dict] = []
        self.computed: list[str] = []  # host computations, by torch's name
        self.temps = 0
        self.too_long = False

    # -- tensors -------------------------------------------------------------------------------

    def ref(self, t: torch.Tensor) -> str | None:
        return self.refs.get(t.untyped_storage().data_ptr())

    def spec(self, t: torch.Tensor) -> dict:
        if self.ref(t) is None:
            # a tensor this call did not make (kept from an earlier call, or made outside
            # torch's dispatch): the judge cannot know what it holds, so it starts unknown,
            # like new memory, and what the call does to it from here on is repeated
            self.new_temporary(t, kept=True)
        return {
            "ref": self.ref(t),
            "dtype": str(t.dtype).removeprefix("torch."),
            "shape": list(t.shape),
            "stride": list(t.stride()),
            "offset": t.storage_offset(),
        }

    def new_temporary(self, t: torch.Tensor, kept: bool = False) -> None:
        self.temps += 1
        ref = f"t{self.temps}"
        self.refs[t.untyped_storage().data_ptr()] = ref
        storage = t.untyped_storage()
        first, end = storage.data_ptr(), storage.data_ptr() + storage.nbytes()
        if first < end:  # an empty tensor is no address's (its data_ptr() may be 0)
            # memory handed out again: a freed temporary that lay there is no address's now
            for old, (start, nbytes) in list(self.spans.items()):
                if start < end and first < start + nbytes:
                    del self.spans[old]
            self.spans[ref] = (first, storage.nbytes())
        step = {"step": "alloc", "ref": ref, "nbytes": storage.nbytes(), "device": t.device.type}
        self.add(step | ({"kept": True} if kept else {}))

    def add(self, step: dict) -> None:
        if len(self.steps) >= MAX_STEPS:
            self.too_long = True
            return
        self.steps.append(step)

    def note_computed(self, name: str) -> None:
        if name not in self.computed and len(self.computed) < MAX_NOTED:
            self.computed.append(name)

    # -- torch operations, as the dispatcher sees them ----------------------------------------

    def torch_op(self, name: str, args: tuple, kwargs: dict, out) -> None:
        if name in VIEWS:
            return
        if name == "lift_fresh":  # torch.tensor(data): made, with its values, below dispatch
            self.new_temporary(out)
            self.send_values(name, out)
            return
        made = [
            t
            for t in tensors_in(out)
            if self.ref(t) is None or self.handed_out_again(name, t, args, kwargs)
        ]
        for t in made:
            self.new_temporary(t)
        steps = self.data_movement(name, args, kwargs, made)
        if steps is not None:
            for step in steps:
                self.add(step)
            return
        if all(self.ref(t) in self.known for t in tensors_in(list(args) + list(kwargs.values()))):
            # made from Python values alone (arange(n)), or computed from tensors that were
            # (arange(b) * stride, lengths.cumsum(0)): sent by value too
            for t in tensors_in(out):
                self.send_values(name, t)
            return
        # anything else is computed on the host: the judge cannot repeat it, and what it wrote
        # is unknown to the judge (new tensors start unknown; written ones are marked so)
        self.note_computed(name)
        new = {id(t) for t in made}
        for t in tensors_in(out):
            if id(t) not in new and self.ref(t) is not None:
                self.known.discard(self.ref(t))
                self.add({"step": "host_wrote", "into": self.spec(t), "by": name})

    def handed_out_again(self, name: str, t: torch.Tensor, args: tuple, kwargs: dict) -> bool:
        """Whether `t`, at the address of an earlier temporary, is new memory: what a function
        (not an in-place op, not out=) returns, sharing no input's storage. torch's allocators
        hand a freed block out again (a workspace made with torch.zeros in each of two calls
        gets the first one's address), and that memory is new, to fill as recorded now."""
        if name.endswith("_") or "out" in kwargs:
            return False
        inputs = tensors_in(list(args) + list(kwargs.values()))
        address = t.untyped_storage().data_ptr()
        return all(x.untyped_storage().data_ptr() != address for x in inputs)

    def data_movement(self, name: str, args: tuple, kwargs: dict, made: list) -> list | None:
        """The steps that repeat this operation on the judge's buffers: an allocation, a fill
        with a plain number, a copy between tensors the judge knows. None if it computes."""
        first = args[0] if args and isinstance(args[0], torch.Tensor) else None
        second = args[1] if len(args) > 1 else None
        if name in ALLOCATIONS:
            value = ALLOCATIONS[name]
            if value is None:
                return []
            if isinstance(value, str):  # full(): the value is an argument
                value = plain_number(kwargs.get(value, second))
            if value is None:
                return None
            self.known.update(self.ref(t) for t in made)
            return [self.fill(t, value) for t in made]
        if name in ("fill_", "zero_") and first is not None:
            value = 0 if name == "zero_" else plain_number(second)
            return None if value is None else [self.fill(first, value)]
        if name == "copy_" and first is not None and isinstance(second, torch.Tensor):
            return [self.copy(first, second)] if self.ref(second) is not None else None
        if name in COPIES and first is not None and len(made) == 1:
            return [self.copy(made[0], first)] if self.ref(first) is not None else None
        return None

    def send_values(self, name: str, t: torch.Tensor) -> None:
        """A tensor made from Python values alone, sent to the judge by value. Nothing of the
        judge's inputs can be in it (the stand-ins hold random values of this process's own),
        so it is what a kernel could compute from its arguments; an element that is the
        address of a tensor the judge knows (a pointer table of data_ptr()s, as in Triton's
        grouped GEMM tutorial) is sent as that tensor's place, for the judge's own buffer."""
        self.values_sent += t.numel()
        values = None
        if self.values_sent <= MAX_VALUES and not t.dtype.is_complex:
            with contextlib.suppress(TypeError, RuntimeError):  # a dtype without Python values
                values = t.detach().reshape(-1).tolist()
        if values is None:
            self.note_computed(name)
            self.known.discard(self.ref(t))
            self.add({"step": "host_wrote", "into": self.spec(t), "by": name})
            return
        if t.dtype == torch.int64:
            values = [self.place_of(v) for v in values]
        self.add({"step": "values", "into": self.spec(t), "values": values})
        self.known.add(self.ref(t))

    def place_of(self, value: int) -> int | dict:
        """{"ref", "byte"} where `value` is an address inside a tensor the judge knows, or
        just past its end where it is inside none (an end pointer)."""
        for past_the_end in (0, 1):
            for ref, (first, nbytes) in self.spans.items():
                if value and first <= value < first + nbytes + past_the_end:
                    self.pointed.add(ref)
                    return {"ref": ref, "byte": value - first}
        return value

    def fill(self, into: torch.Tensor, value) -> dict:
        return {"step": "fill", "into": self.spec(into), "value": value}

    def copy(self, into: torch.Tensor, source: torch.Tensor) -> dict:
        step = {"step": "copy", "into": self.spec(into), "from": self.spec(source)}
        # values copied into a tensor of values keep it known, and so does a whole tensor
        # copied from one (a clone, a .to()); anything else copied in makes it unknown
        if self.ref(source) not in self.known:
            self.known.discard(self.ref(into))
        elif into.untyped_storage().nbytes() == into.numel() * into.element_size():
            self.known.add(self.ref(into))
        return step

    # -- launches ----------------------------------------------------------------------------

    def describe(self, value):
        if isinstance(value, torch.Tensor):
            return {"tensor": str(value.dtype).removeprefix("torch."), **self.spec(value)}
        if isinstance(value, TensorDescriptor):
            return {
                "descriptor": mangle_type(value),  # "tensordesc<fp16[64, 32]>"
                "base": self.spec(value.base),
                "shape": [int(s) for s in value.shape],
                "strides": [int(s) for s in value.strides],
                "block_shape": [int(s) for s in value.block_shape],
                "padding": str(getattr(value, "padding", "zero")),
            }
        if isinstance(value, tl.constexpr):  # a launch may pass tl.constexpr(64) itself
            value = value.value
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if type(value) is tuple and len(value) <= MAX_TUPLE and tuple not in map(type, value):
            # a tuple argument (a tensor's strides as one), each of its items described alone
            return {"tuple": [self.describe(item) for item in value]}
        if isinstance(value, torch.dtype):
            return {"dtype": str(value).removeprefix("torch.")}
        if isinstance(value, (JITFunction, InterpretedFunction)):
            # a @triton.jit function given as a constexpr (ACTIVATION=gelu), which the kernel
            # calls: the judge gives its own copy of it, from the kernels it runs
            return {"jit": value.__name__}
        name = getattr(value, "name", None)  # a triton dtype given as a constexpr
        return {"dtype": name} if isinstance(name, str) else {"repr": repr(value)[:200]}

    def launch(self, kernel, args: tuple, kwargs: dict, grid) -> None:
        named = dict(zip(kernel.arg_names, args, strict=False)) | kwargs
        shape = grid(named) if callable(grid) else grid
        shape = shape if isinstance(shape, (tuple, list)) else (shape,)
        # the kernel may write any tensor it is given, or reaches through a table of pointers
        self.known -= self.pointed
        for value in named.values():
            base = value.base if isinstance(value, TensorDescriptor) else value
            for t in tensors_in(base):
                self.known.discard(self.ref(t))
        self.add(
            {
                "step": "launch",
                "kernel": kernel.__name__,
                "grid": [int(g) for g in shape],
                "args": {name: self.describe(value) for name, value in named.items()},
                "benchmark": untimed.timing,
            }
        )


def custom_op_body(func):
    """The Python function of a custom op (torch.library.custom_op, triton_op as PyTorch's
    recipe writes it), or None. Such an op runs its body below a dispatch mode, unseen; run
    under it, what the body makes and launches is written down like the rest of the call."""
    if getattr(func, "namespace", "aten") in ("aten", "prims"):
        return None
    try:
        from torch._library.custom_ops import OPDEFS
    except ImportError:
        return None
    return getattr(OPDEFS.get(func._schema.name), "_init_fn", None)


def higher_order(func, args: tuple, kwargs: dict):
    """A higher-order operator of the host code, run below the tracer: wrap_triton's launch,
    which the trace records as any launch. Any other (torch.cond, a while_loop) would run torch
    operations the trace never sees, so it is refused by name."""
    if not func.name().startswith("triton_kernel_wrapper"):
        raise NotImplementedError(
            f"torch's higher-order operator {func.name()} runs torch operations the grader "
            "cannot follow: call what it wraps directly"
        )
    return func(*args, **kwargs)


def tracing(trace: Trace):
    """A dispatch mode that writes every torch operation of the host code into the trace."""
    from torch._ops import HigherOrderOperator
    from torch.utils._python_dispatch import TorchDispatchMode

    class Tracer(TorchDispatchMode):
        # wrap_triton's launch (torch.library) reaches a dispatch mode as a higher-order
        # operator on a GPU, where the interpreter's kernels skip it
        supports_higher_order_operators = True

        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            # torch 2.14 wraps a mode's __torch_dispatch__ to keep torch.compile out of it, and
            # the wrapper imports torch._dynamo (1.6 s here) on the first operation; nothing is
            # compiled in this process
            return False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if isinstance(func, HigherOrderOperator):
                return higher_order(func, args, kwargs)
            body = custom_op_body(func)
            if body is not None:
                with self:  # its own torch calls and launches, as the host code's
                    return body(*args, **kwargs)
            out = func(*args, **kwargs)
            trace.torch_op(func.overloadpacket.__name__, args, kwargs, out)
            return out

    return Tracer()


# ---------------------------------------------------------------------------------------------
# Ops
# ---------------------------------------------------------------------------------------------


class Runner:
    def __init__(self, module, learner_file: str):
        self.module = module
        self.learner_file = learner_file
        self.trace = Trace({})
        record_launches(lambda: self.trace)

    def entry(self, name: str):
        fn = getattr(self.module, name, None)
        if fn is None:
            raise AttributeError(f"{os.path.basename(self.learner_file)} defines no {name}")
        return fn

    def op_call(self, message: dict) -> dict:
        fn = self.entry(message["fn"])
        device = "cuda" if ON_GPU else "cpu"
        buffers = stand_ins(message["buffers"], device)
        args = [materialise(a, buffers) for a in message["args"]]
        kwargs = {k: materialise(v, buffers) for k, v in message["kwargs"].items()}
        # a second call right after the first, in the same record (its own `out`): whatever
        # the first call leaves behind (a workspace) is there for the second
        again = message.get("again")
        again_kwargs, again_args = None, args
        if again is not None:
            again_kwargs = {k: materialise(v, buffers) for k, v in again.items()}
        if message.get("again_args") is not None:
            again_args = [materialise(a, buffers) for a in message["again_args"]]
        self.trace = trace = Trace(buffers)
        if message.get("benchmark"):
            forget_timings(self.module)
        benchmarked = untimed.running_each_config(message.get("benchmark"))
        try:
            with self.forced_config(message.get("config")), benchmarked, tracing(trace):
                result = fn(*args, **kwargs)
                again_result = None if again_kwargs is None else fn(*again_args, **again_kwargs)
        except PrunedAway as e:
            return {"pruned": str(e)[:300]}
        if ON_GPU:
            torch.cuda.synchronize()
        reply = {
            "steps": trace.steps,
            "too_long": trace.too_long,
            "computed": trace.computed,
            "result": self.describe_result(result, trace),
        }
        if again_kwargs is not None:
            reply["again_result"] = self.describe_result(again_result, trace)
        return reply

    @contextlib.contextmanager
    def forced_config(self, chosen):
        """Autotune the kernel named chosen["kernel"] so that it keeps one config: the
        `index`-th of the learner's list (a GPU may choose any), or, given with "configs", of
        the list a GPU machine's environment makes (the judge reads it from the source); then
        the module's own list, where the autotuner holds it, reads as on a GPU too, for host
        code that reads it (a grid from CONFIGS[0]). Autotune prunes and times the whole list
        as it would, the wanted config first among those its pruning keeps (a config the
        pruning removes for the call raises PrunedAway): its timing runs, where the call
        shows them, are a GPU's."""
        if chosen is None:
            yield
            return
        kernel = autotuners(self.module).get(chosen["kernel"])
        if kernel is None:
            raise LookupError(f"{chosen['kernel']} is not autotuned")
        configs, shown = kernel.configs, None
        if "configs" in chosen:
            listed = [given_config(fields) for fields in chosen["configs"]]
            if isinstance(configs, list):
                shown, configs[:] = configs[:], listed
        else:
            listed = list(configs)
        wanted = listed[chosen["index"]]
        prune = kernel.prune_configs

        def the_wanted_first(kwargs):
            kept = prune(kwargs)
            others = [c for c in kept if not (c is wanted or str(c) == str(wanted))]
            if len(others) == len(kept):
                raise PrunedAway(f"{wanted} is pruned away for this call")
            # the benchmarker here ties every config, and autotune keeps the first of a tie
            return [wanted, *others]

        # the whole list, so that autotune prunes and times as it would (a list of one it
        # neither prunes nor times)
        kernel.configs = listed
        kernel.prune_configs = the_wanted_first
        kernel.cache.clear()
        try:
            yield
        finally:
            if shown is not None:
                configs[:] = shown
            kernel.configs = configs
            del kernel.prune_configs
            kernel.cache.clear()

    def describe_result(self, result, trace: Trace) -> dict:
        if isinstance(result, (tuple, list)) and 0 < len(result) <= MAX_RESULTS:
            # several outputs (attention's output and log-sum-exp), each described alone
            return {
                "type": type(result).__name__,
                "items": [self.describe_result(item, trace) for item in result],
            }
        if not isinstance(result, torch.Tensor):
            return {"type": type(result).__name__}
        return {"type": "Tensor", "device": result.device.type, **trace.spec(result)}

    def op_configs(self, message: dict) -> dict:
        """Each autotuned kernel's configs, by the name its launches record."""
        return {
            "configs": {
                name: [str(c) for c in kernel.configs]
                for name, kernel in autotuners(self.module).items()
                if isinstance(kernel.configs, (list, tuple))
            }
        }

    def handle(self, message: dict) -> dict:
        try:
            reply = getattr(self, "op_" + message["op"])(message)
            if ON_GPU and stand_in_bytes(message) > LARGE_STAND_INS:
                # give the GPU back the stand-ins of a case of gigabytes: the judge's next such
                # case needs the memory, and this process would keep it cached
                torch.cuda.empty_cache()
            return {"ok": True, **reply}
        except BaseException as e:  # noqa: BLE001 - whatever the learner's code raises goes back
            return {"ok": False, "error": describe_error(e, self.learner_file)}


def describe_error(e: BaseException, learner_file: str) -> dict:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == learner_file]
    where = frames[-1] if frames else None
    return {
        "type": type(e).__name__,
        "message": str(e)[:4000],
        "not_started": isinstance(e, NotStarted),
        "line": where.lineno if where else None,
        "code": (where.line or "").strip()[:300] if where else "",
    }


def import_learner_file(path: str):
    spec = importlib.util.spec_from_file_location("learner", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["learner"] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    sock_fd, learner_file = int(sys.argv[1]), sys.argv[2]
    sock = socket.socket(fileno=sock_fd)
    provide_drills_module()
    prepare_triton()
    try:
        module = import_learner_file(learner_file)
        runner = Runner(module, learner_file)
    except BaseException as e:  # noqa: BLE001 - an import failure is the learner's to read
        send(sock, {"ok": False, "error": describe_error(e, learner_file)})
        return 0
    send(sock, {"ok": True, "ready": True})
    while True:
        send(sock, runner.handle(receive(sock)))


if __name__ == "__main__":
    sys.exit(main())
