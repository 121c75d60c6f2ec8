"""The judge's executor: the one process that runs a learner's kernels for a grade.

Trusted. It runs the @triton.jit functions of the judge's own reading of the learner's file
(drills.judge.source.kernel_module: nothing in it reaches outside triton.language), never the file
itself, on the judge's buffers for one case, shared with it (memfd on the CPU, CUDA IPC on a
GPU). It follows the record a runner made of the learner's host function (drills/runner.py):
allocations, fills and copies are done as recorded, every launch is run here, and what host
code computed is marked unknown (NaN). So a buffer the judge grades holds only what the
learner's kernels wrote into it, from the judge's inputs.

A process of its own, so that an endless loop, a crash or a GPU fault in a kernel costs one
case, not the judge. `python -B -m drills.judge.executor SOCKET_FD`; one JSON request per
SOCK_SEQPACKET message, with the file descriptors of CPU buffers attached, one JSON reply.

On the interpreter it also watches every masked load, and reports those that read the padding
of a guarded tensor: a load past the end of an input whose lanes are never stored leaves the
result right, so no canary sees it. And it notes which program stored into each element of the
output's buffer, for the judge's map of the output's tiles.
"""

import ast
import base64
import contextlib
import dataclasses
import inspect
import json
import math
import mmap
import os
import pickle
import socket
import sys
import traceback
import types
from collections.abc import Callable

import torch
import triton
import triton.language as tl
from triton.runtime.errors import OutOfResources

from drills.errors import compile_error_text
from drills.judge import libdevice
from drills.judge.gpu_compile import LoadedKernels, constexpr_value
from drills.judge.past_end import PastTheEnd

INTERPRETING = os.environ.get("TRITON_INTERPRET") == "1"
ON_GPU = not INTERPRETING and torch.cuda.is_available()
MAX_MESSAGE = 8 << 20
# launch options a recorded launch may carry to triton (the others are not triton's business)
OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


class Refused(Exception):
    """A step the judge will not run as recorded; the message says why, for the learner."""


class BeyondTheGpu(Exception):
    """A launch that no NVIDIA GPU runs, whatever its kernel: the message names the limit, what
    the launch asked for and the way around it. The interpreter has no such limits, so the judge
    applies them there too, and a GPU's own error says less."""


class OutsideEveryTensor(Exception):
    """A load, store or atomic at an address in none of the call's tensors. On the interpreter
    that is the executor's own memory, which a pointer made from an integer could otherwise
    read or rewrite (numpy's functions, the judge's records); on a GPU, a fault or another
    tensor. `access` is "load" or "store"."""

    def __init__(self, access: str, message: str):
        super().__init__(message)
        self.access = access


class RaceOnAGpu(Exception):
    """Programs of one launch that pass values through memory as only programs run one at a
    time can: one loads back an element it stored while another stores a different value there.
    The interpreter runs programs one after another, so each reads its own value; a GPU runs
    them at once, and the load can see the other's."""


TEMPORARY_SLACK = 1 << 16  # bytes after each temporary of a record
# CUDA's largest grid: 2^31 - 1 programs along axis 0, 65535 along axes 1 and 2
GRID_LIMITS = (2**31 - 1, 65535, 65535)
TMA_ALIGNMENT = 16  # bytes: a tensor descriptor's base address and its strides but the last


# ---------------------------------------------------------------------------------------------
# The interpreter, made to run what a GPU runs
# ---------------------------------------------------------------------------------------------


def tma_misalignment(address: int, size: int, strides: list) -> str:
    """Why the GPU's tensor memory accelerator cannot read elements of `size` bytes from
    `address` through a descriptor with these strides (in elements), or "": the address and
    every stride but the last must be multiples of 16 bytes."""
    if address % TMA_ALIGNMENT:
        return (
            f"a tensor descriptor's base must sit at a multiple of {TMA_ALIGNMENT} bytes, and "
            f"this one is {address % TMA_ALIGNMENT} bytes past one (a view that starts "
            "mid-row): describe the whole tensor and offset the block instead, or load it with "
            "tl.load."
        )
    for axis, stride in enumerate(strides[:-1]):
        if int(stride) * size % TMA_ALIGNMENT:
            return (
                f"a tensor descriptor's strides but the last must be multiples of "
                f"{TMA_ALIGNMENT} bytes, and stride {axis} is {stride} elements of {size} bytes "
                f"({int(stride) * size} bytes): load such a tensor with tl.load, or copy it "
                "into one whose rows are padded to 16 bytes."
            )
    return ""


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
    annotation still makes a constexpr, tl.range counts in tensors, a module-level alias of a
    builtin (exp = tl.exp) is a builtin in a kernel, and libdevice computes something. And
    patch triton.language once per launch, not again at every call of a @triton.jit helper."""
    from triton.runtime import interpreter
    from triton.runtime.interpreter import GridExecutor

    executor_init, executor_call = GridExecutor.__init__, GridExecutor.__call__
    patch_lang, unpatched_range = interpreter._patch_lang, tl.range
    builtins = unpatched_builtins()
    libdevice_stand_ins = libdevice.install()
    # a function whose globals hold both modules a kernel's may: patching for it patches all
    # that patching for any kernel or helper would
    every_lang = types.FunctionType((lambda: None).__code__, {"tl": tl, "core": tl.core})
    launches: list[set[int] | None] = []  # per launch under way: the globals bound since

    def bind_builtins(module_globals: dict) -> None:
        # the interpreter patches the builtins of the modules a kernel sees (tl, tl.math), not a
        # name bound to one at import; the GPU compiler resolves such a name to the builtin
        for name, builtin in PYTHON_BUILTINS_ON_A_GPU.items():
            if name not in module_globals and hasattr(tl.core, builtin):
                module_globals[name] = getattr(tl.core, builtin)  # as patched for this launch
        for name, value in list(module_globals.items()):
            try:
                builtin, stand_in = builtins.get(value), libdevice_stand_ins.get(value)
            except TypeError:  # unhashable (a tl.constexpr): neither
                continue
            if builtin is not None:
                lang, attr = builtin
                module_globals[name] = getattr(lang, attr)  # the interpreter's version of it
            elif stand_in is not None:
                module_globals[name] = stand_in

    def patch_lang_once_per_launch(fn):
        if launches and launches[-1] is not None:
            # a helper a program calls: triton patches triton.language anew at every such
            # call (every member of tl, tl.core, tl.math and the tensor classes inspected),
            # which took a third of the time of grading T4
            scope = NOTHING_TO_RESTORE
        else:
            scope = patch_lang(every_lang)  # restored when the launch ends
            for lang in (tl, tl.core):
                if lang.range is not unpatched_range:
                    scope.set_attr(lang, "range", tensor_range)
            scope.set_attr(tl.core.tensor, "__bool__", truth_of_a_scalar)
            if launches:
                launches[-1] = set()
        bound = launches[-1] if launches else set()
        if id(fn.__globals__) not in bound:
            bound.add(id(fn.__globals__))
            bind_builtins(fn.__globals__)
        return scope

    def init(self, fn, arg_names, grid, *rest, **kwargs):
        executor_init(self, fn, arg_names, grid, *rest, **kwargs)
        annotations = inspect.get_annotations(fn)
        self.constexprs = [
            name for name in arg_names if name in annotations and is_constexpr(annotations[name])
        ]

    def call(self, *args, **kwargs):
        launches.append(None)
        try:
            return executor_call(self, *args, **kwargs)
        finally:
            launches.pop()

    GridExecutor.__init__, GridExecutor.__call__ = init, call
    interpreter._patch_lang = patch_lang_once_per_launch
    skip_unasserted_overflow_checks(interpreter.interpreter_builder)
    interpreter.ReduceOps.generic_reduce = by_halves_else(interpreter.ReduceOps.generic_reduce)
    interpreter._implicit_cvt = fp32_floats(interpreter._implicit_cvt)
    programs_in_any_order(type(interpreter.interpreter_builder))
    descriptors_aligned_as_on_a_gpu(type(interpreter.interpreter_builder))
    logic_of_blocks_elementwise(interpreter)


def descriptors_aligned_as_on_a_gpu(builder: type) -> None:
    """A descriptor a kernel makes itself (tl.make_tensor_descriptor) is refused as a GPU's
    TMA refuses it, with the same reason and fix as one the host passes; the interpreter's own
    check says only "stride must be 16-byte aligned"."""
    make = builder.create_make_tensor_descriptor

    def checked(self, base, shape, strides, *rest, **kwargs):
        if not hasattr(base.dtype, "element_ty"):  # no pointer: the interpreter's own error
            return make(self, base, shape, strides, *rest, **kwargs)
        size = base.dtype.element_ty.primitive_bitwidth // 8
        strides_now = [int(s.data.item()) for s in strides]
        misaligned = tma_misalignment(int(base.data.item()), size, strides_now)
        if misaligned:
            raise BeyondTheGpu(misaligned)
        return make(self, base, shape, strides, *rest, **kwargs)

    builder.create_make_tensor_descriptor = checked


# the names the rewritten kernels call `and`, `or` and `not` by (the interpreter copies its
# module's names into a kernel's globals, where the kernel module does not define them)
LOGIC, NOT = "_drills_logic_of_blocks", "_drills_not_of_a_block"


def logic_of_blocks_elementwise(interpreter: types.ModuleType) -> None:
    """`and`, `or` and `not` of blocks as a GPU computes them: triton's code generator makes
    them element by element (logical_and, logical_or, logical_not; deprecated since 3.6, with
    a warning), where Python's ask a block's truth. The interpreter runs each kernel from its
    own rewriting of the kernel's syntax tree; the rewriting also turns `a and b` into
    LOGIC(True, lambda: a, lambda: b), which evaluates the operands in order as the compiler
    does, and `not a` into NOT(a)."""
    rewriting = type(interpreter.FunctionRewriter.ast_transformer)

    class ElementwiseLogic(rewriting):
        def visit_Assign(self, node):
            node.value = self.visit(node.value)  # the interpreter's own does not descend there
            return super().visit_Assign(node)

        def visit_BoolOp(self, node):
            node = self.generic_visit(node)
            empty = ast.arguments(
                posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]
            )
            operands = [ast.Lambda(args=empty, body=value) for value in node.values]
            is_and = ast.Constant(isinstance(node.op, ast.And))
            call = ast.Call(ast.Name(LOGIC, ast.Load()), [is_and, *operands], [])
            return ast.copy_location(call, node)

        def visit_UnaryOp(self, node):
            node = self.generic_visit(node)
            if not isinstance(node.op, ast.Not):
                return node
            return ast.copy_location(ast.Call(ast.Name(NOT, ast.Load()), [node.operand], []), node)

    interpreter.FunctionRewriter.ast_transformer = ElementwiseLogic()
    setattr(interpreter, LOGIC, logic_of_blocks)
    setattr(interpreter, NOT, not_of_a_block)


def logic_of_blocks(is_and: bool, *operands: Callable):
    """`and` (is_and) or `or` of the operands, each a function that evaluates one, as triton's
    code generator computes it: a value that is no tensor (a constexpr, a Python value) ends an
    `and` when false and an `or` when true, and is the result; others leave no trace; the
    tensors are combined element by element, the last two first."""
    tensors, value = [], None
    for operand in operands:
        value = operand()
        if isinstance(value, tl.tensor):
            tensors.append(value)
        elif bool(value) != is_and:
            return value
    if not tensors:
        return value
    while len(tensors) >= 2:
        rhs, lhs = tensors.pop(), tensors.pop()
        tensors.append(lhs.logical_and(rhs) if is_and else lhs.logical_or(rhs))
    return tensors[0]


def not_of_a_block(value):
    """`not value` as triton's code generator computes it: a tensor's __not__, element by
    element; a Python value's `not`."""
    return value.__not__() if isinstance(value, tl.tensor) else not value


def fp32_floats(implicit_cvt: Callable) -> Callable:
    """A float argument as a GPU gets it, an fp32 scalar, where the interpreter kept Python's
    float (float64): (1.0 + 1e-10) - 1.0 > 0 is false in fp32 and true in float64."""
    import numpy as np
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    def convert(arg):
        if isinstance(arg, float):
            return tl.tensor(
                TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32
            )
        return implicit_cvt(arg)

    return convert


def programs_in_any_order(builder: type) -> None:
    """The interpreter runs a grid's programs one after another, in order; a GPU runs them at
    once, in none. Each launch here runs them in an order of its own, drawn afresh, so that a
    kernel that reads what another program stored (a race on a GPU) reads the canary, whichever
    program it counts on having run first."""
    import random

    set_grid_dim, set_grid_idx = builder.set_grid_dim, builder.set_grid_idx
    draw = random.Random(os.urandom(8))

    def shuffled_dim(self, nx, ny, nz):
        set_grid_dim(self, nx, ny, nz)
        self.program_order = draw.sample(range(nx * ny * nz), nx * ny * nz)
        self.launch_number = getattr(self, "launch_number", 0) + 1  # for stores_by_program

    def shuffled_idx(self, x, y, z):
        _, ny, nz = self.grid_dim
        k = self.program_order[(x * ny + y) * nz + z]
        set_grid_idx(self, k // (ny * nz), k // nz % ny, k % nz)

    builder.set_grid_dim, builder.set_grid_idx = shuffled_dim, shuffled_idx


def by_halves_else(by_elements: Callable) -> Callable:
    """The interpreter's generic_reduce (by_elements), by halves wherever the combine function
    takes blocks (reduce_by_halves)."""

    def generic_reduce(op, inputs):
        try:
            return reduce_by_halves(op, inputs)
        except Exception:  # noqa: BLE001 - a combine function that needs its values one by one
            return by_elements(op, inputs)

    return generic_reduce


def combine_blocks(fn: Callable, blocks: list):
    """fn on blocks, where a block's truth raises whoever's code asks it (truth_of_a_scalar)."""
    global combining
    asked = tl.core.tensor.__bool__
    tl.core.tensor.__bool__, combining = truth_of_a_scalar, True
    try:
        return fn(*blocks)
    finally:
        tl.core.tensor.__bool__, combining = asked, False


def reduce_by_halves(op, inputs: tuple) -> list:
    """tl.reduce with a combine function of the learner's (inductor's max2, a Welford step): the
    interpreter calls it on one element at a time, a Python call per element (most of the 30 s
    T2 took written with max2). Here it takes whole blocks: element 2i with 2i + 1 along the
    axis, then the same on the results, log2(n) calls. That is a GPU's order, a tree, which
    tl.reduce allows by asking for an associative function; left stays left of right. A
    function that cannot take blocks (an `if` on its values) raises here, and by_halves_else
    gives it the original."""
    import numpy as np

    given_axis = op.axis
    inputs, axis = op.unravel(inputs, op.axis)
    input_shape = inputs[0].handle.data.shape
    values = [np.moveaxis(arg.handle.data, axis, -1) for arg in inputs]
    dtypes = [arg.dtype for arg in inputs]
    while values[0].shape[-1] > 1:
        if values[0].shape[-1] % 2:
            raise ValueError("an axis that is not a power of two")
        halves = [(v[..., 0::2], v[..., 1::2]) for v in values]
        left = [op.to_tensor(even, t) for (even, _), t in zip(halves, dtypes, strict=True)]
        right = [op.to_tensor(odd, t) for (_, odd), t in zip(halves, dtypes, strict=True)]
        combined = combine_blocks(op.combine_fn.fn, left + right)
        combined = combined if isinstance(combined, tuple) else (combined,)
        values = [
            np.broadcast_to(
                c.handle.data if isinstance(c, tl.core.tensor) else c, even.shape
            ).astype(even.dtype)
            for c, (even, _) in zip(combined, halves, strict=True)
        ]
    reduced = []
    for data, dtype in zip(values, dtypes, strict=True):
        data = data[..., 0]
        if op.keep_dims:  # shaped as the interpreter's own generic_reduce shapes its result
            data = (
                data.reshape([1] * len(input_shape))
                if given_axis is None
                else np.expand_dims(data, axis)
            )
        elif given_axis is None:
            data = data.item()
        reduced.append(op.to_tensor(data, dtype))
    return reduced


# Python's builtins that triton's code generator takes for its own in a kernel: on a GPU
# max(a, b) of blocks is their elementwise maximum, where Python's max compares them as wholes
PYTHON_BUILTINS_ON_A_GPU = {"max": "builtin_max", "min": "builtin_min"}


combining = False  # while reduce_by_halves runs a combine function on blocks


def truth_of_a_scalar(tensor) -> bool:
    """A block's truth in the learner's kernels, as a GPU has it: a scalar's is its value; a
    block has none (the compiler refuses `if block:`; its `and`, `or` and `not` are element by
    element, and logic_of_blocks_elementwise rewrites them so), where the interpreter's own
    takes any block as true. The interpreter's own code asks a block's truth too: there it
    keeps its answer, but in a combine function that reduce_by_halves hands blocks (a
    library's, inductor's, too)."""
    data = tensor.handle.data
    if data.size == 1:
        return bool(data)
    asked_by_kernel = sys._getframe(1).f_code.co_filename.startswith(LoadedKernels.FILENAME_PREFIX)
    if not (asked_by_kernel or combining):
        return True
    raise TypeError(
        f"the truth of a block of {data.size} elements: `if`, `while` and `a if c else b` need "
        "one value, and a GPU's compiler refuses a block there: choose values element by "
        "element with tl.where(c, a, b), or reduce the block first (tl.max, tl.sum)"
    )


def skip_unasserted_overflow_checks(builder) -> None:
    """The interpreter redoes every int32 +, - and * in int64 to compare it with int32's range,
    and hands the answer to tl.device_assert, which ignores it unless the options say debug,
    which the interpreter's never do: 45% of an executor's time grading T4, for nothing."""
    if not builder.options.debug:
        builder.options = dataclasses.replace(builder.options, sanitize_overflow=False)


class _NothingToRestore:
    """What a helper's call gets back where the launch's patching holds (triton restores the
    scope a launch gets; a helper's, it drops)."""

    def restore(self) -> None:
        pass


NOTHING_TO_RESTORE = _NothingToRestore()


def unpatched_builtins() -> dict[Callable, tuple]:
    """The builtins of triton.language and tl.math before the interpreter patches them (held
    here, so that no other object can take one's place in memory, as a freed one's would):
    (module, name), where the interpreter's version will be."""
    return {
        value: (lang, name)
        for lang in (tl, tl.core, tl.math)
        for name, value in vars(lang).items()
        if tl.core.is_builtin(value)
    }


@contextlib.contextmanager
def reads_outside(regions: list, found: dict):
    """On the interpreter, note the loads that read a guarded tensor's padding."""
    if not INTERPRETING or not regions:
        yield
        return
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    original = InterpreterBuilder.create_masked_load

    def checked_load(self, ptrs, mask, *rest, **options):
        addresses = ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape).astype(bool)]
        for name, start, size, inside, first in regions:
            element = (addresses[addresses >= start] - start) // size
            element = element[element < inside.size]
            # signed: the padding before the tensor's first element gives negative offsets,
            # which the addresses' uint64 would wrap to near 2^64
            found[name].update((element[~inside[element]].astype(np.int64) - first).tolist())
        return original(self, ptrs, mask, *rest, **options)

    InterpreterBuilder.create_masked_load = checked_load
    try:
        yield
    finally:
        InterpreterBuilder.create_masked_load = original


@contextlib.contextmanager
def stores_by_program(regions: list):
    """On the interpreter, note in each region's `writers` (one int32 per element of its
    buffer, -1 until stored into) the linear id of a program of the last launch that stored
    it, pid_0 + pid_1 * grid_0 + pid_2 * grid_0 * grid_1: the lowest, where several did, so
    that what is noted does not depend on the order the programs happened to run in."""
    if not INTERPRETING or not regions:
        yield
        return
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    stored_in = [np.full(writers.size, -1, dtype=np.int64) for _, _, writers in regions]

    def note(builder, ptrs, mask) -> None:
        x, y, z = builder.grid_idx
        pid = x + y * builder.grid_dim[0] + z * builder.grid_dim[0] * builder.grid_dim[1]
        addresses = ptrs.data[np.broadcast_to(mask.data, ptrs.data.shape).astype(bool)]
        launch = getattr(builder, "launch_number", 0)
        for (start, size, writers), launch_of in zip(regions, stored_in, strict=True):
            element = (addresses[addresses >= start] - start) // size
            element = element[element < writers.size]
            earlier = launch_of[element] != launch
            writers[element] = np.where(earlier, pid, np.minimum(writers[element], pid))
            launch_of[element] = launch

    store, atomic = InterpreterBuilder.create_masked_store, InterpreterBuilder.create_atomic_rmw

    def noted_store(self, ptrs, value, mask, *rest):
        note(self, ptrs, mask)
        return store(self, ptrs, value, mask, *rest)

    def noted_atomic(self, op, ptrs, value, mask, *rest):
        note(self, ptrs, mask)
        return atomic(self, op, ptrs, value, mask, *rest)

    InterpreterBuilder.create_masked_store = noted_store
    InterpreterBuilder.create_atomic_rmw = noted_atomic
    try:
        yield
    finally:
        InterpreterBuilder.create_masked_store = store
        InterpreterBuilder.create_atomic_rmw = atomic


class ReadBacks:
    """On the interpreter, one launch's stores, and the loads by which a program read back an
    element it had stored itself: what race() needs to find an element that another program of
    the launch stored a different value into."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self.stores: list[tuple] = []  # (addresses, program, value bits) of each store
        self.read_back: list[tuple] = []  # (addresses, program) of loads of its own stores
        self.program: int | None = None
        self.own: list = []  # the address arrays the running program has stored into
        self.lowest = self.highest = 0  # the range they span
        self.own_sorted = None  # their addresses, sorted: the first `merged` of them
        self.merged = 0

    def stored(self, program: int, addresses, bits) -> None:
        if program != self.program:
            self.program, self.own, self.own_sorted, self.merged = program, [], None, 0
        if addresses.size:
            low, high = int(addresses.min()), int(addresses.max())
            first = not self.own
            self.lowest = low if first else min(self.lowest, low)
            self.highest = high if first else max(self.highest, high)
            self.own.append(addresses)
        self.stores.append((addresses, program, bits))

    def loaded(self, program: int, addresses) -> None:
        if program != self.program or not self.own or not addresses.size:
            return
        # most loads read other tensors than the program stores into: no search for those
        if int(addresses.max()) < self.lowest or int(addresses.min()) > self.highest:
            return
        hit = addresses[self.stored_by_this_program(addresses)]
        if hit.size:
            self.read_back.append((hit, program))

    def stored_by_this_program(self, addresses):
        """Which of `addresses` the running program has stored into. Its stores are kept
        sorted, each new one merged in once: a program that loops over many blocks (a
        grid-stride loop) would otherwise search all it stored on every load."""
        import numpy as np

        if self.merged < len(self.own):
            runs = [np.sort(a) for a in self.own[self.merged :]]
            if self.own_sorted is not None:
                runs.insert(0, self.own_sorted)
            # sorted runs: a stable sort (timsort) merges them in linear time
            self.own_sorted = np.sort(np.concatenate(runs), kind="stable")
            self.merged = len(self.own)
        at = np.minimum(np.searchsorted(self.own_sorted, addresses), self.own_sorted.size - 1)
        return self.own_sorted[at] == addresses

    def race(self) -> tuple[int, int, int] | None:
        """(address, the program that read it back, another program that stored a different
        value there) for the first such element of the launch, or None."""
        import numpy as np

        if not self.read_back:
            return None
        read = np.unique(np.concatenate([hit for hit, _ in self.read_back]))
        addresses = np.concatenate([a for a, _, _ in self.stores])
        programs = np.concatenate([np.full(a.size, p, np.uint64) for a, p, _ in self.stores])
        bits = np.concatenate([b for _, _, b in self.stores])
        mine = np.isin(addresses, read)
        addresses, programs, bits = addresses[mine], programs[mine], bits[mine]

        def several(values):
            """The addresses that hold more than one distinct value of `values`."""
            pairs = np.unique(np.stack([addresses, values]), axis=1)
            where, count = np.unique(pairs[0], return_counts=True)
            return where[count > 1]

        raced = np.intersect1d(several(programs), several(bits))
        if not raced.size:
            return None
        address = raced[0]
        reader = next(p for hit, p in self.read_back if address in hit)
        other = programs[(addresses == address) & (programs != reader)][0]
        return int(address), reader, int(other)


@contextlib.contextmanager
def inside_the_tensors(storages: "Storages"):
    """On the interpreter, refuse every load, store and atomic whose element does not lie
    wholly inside one of the record's tensors (the judge's buffers, padding included, and the
    temporaries the host allocated, with their slack): a kernel's pointers then reach nothing
    of the process that runs it."""
    if not INTERPRETING:
        yield
        return
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    def check(access: str, ptrs, mask) -> None:
        where = True if mask is None else np.broadcast_to(mask.data, ptrs.data.shape).astype(bool)
        addresses = np.asarray(ptrs.data, dtype=np.uint64)[where]
        if addresses.size == 0:
            return
        size = max(ptrs.get_element_ty().primitive_bitwidth // 8, 1)
        outside = np.ones(addresses.shape, dtype=bool)
        for storage in storages.storages.values():
            first = np.uint64(storage.data_ptr())
            end = first + np.uint64(storage.nbytes())
            outside &= ~((addresses >= first) & (addresses <= end - np.uint64(size)))
        if outside.any():
            raise OutsideEveryTensor(
                access,
                f"a {access} outside every one of the call's tensors ({int(outside.sum())} "
                f"elements, the first at {int(addresses[outside][0]):#x}): every pointer a "
                "kernel uses must be a tensor argument (or a pointer the host put in a table "
                "with data_ptr()) plus offsets that stay inside that tensor.",
            )

    load, store = InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store
    rmw, cas = InterpreterBuilder.create_atomic_rmw, InterpreterBuilder.create_atomic_cas

    def fenced_load(self, ptrs, mask, *rest, **options):
        check("load", ptrs, mask)
        return load(self, ptrs, mask, *rest, **options)

    def fenced_store(self, ptrs, value, mask, *rest, **options):
        check("store", ptrs, mask)
        return store(self, ptrs, value, mask, *rest, **options)

    def fenced_rmw(self, op, ptr, value, mask, *rest, **options):
        check("store", ptr, mask)
        return rmw(self, op, ptr, value, mask, *rest, **options)

    def fenced_cas(self, ptr, *rest, **options):
        check("store", ptr, None)
        return cas(self, ptr, *rest, **options)

    InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store = (
        fenced_load,
        fenced_store,
    )
    InterpreterBuilder.create_atomic_rmw, InterpreterBuilder.create_atomic_cas = (
        fenced_rmw,
        fenced_cas,
    )
    try:
        yield
    finally:
        InterpreterBuilder.create_masked_load, InterpreterBuilder.create_masked_store = load, store
        InterpreterBuilder.create_atomic_rmw, InterpreterBuilder.create_atomic_cas = rmw, cas


@contextlib.contextmanager
def reads_back(seen: ReadBacks):
    """On the interpreter, tell `seen` of every store (not atomics, which are made for sharing)
    and of every load of a program's own stores."""
    if not INTERPRETING:
        yield
        return
    import numpy as np
    from triton.runtime.interpreter import InterpreterBuilder

    def program(builder) -> int:
        x, y, z = builder.grid_idx
        return x + y * builder.grid_dim[0] + z * builder.grid_dim[0] * builder.grid_dim[1]

    def chosen(ptrs, mask):
        return np.broadcast_to(mask.data, ptrs.data.shape).astype(bool)

    store, load = InterpreterBuilder.create_masked_store, InterpreterBuilder.create_masked_load

    def seen_store(self, ptrs, value, mask, *rest):
        where = chosen(ptrs, mask)
        values = np.ascontiguousarray(np.broadcast_to(value.data, ptrs.data.shape))[where]
        bits = values.view(f"u{values.itemsize}").astype(np.uint64)
        seen.stored(program(self), ptrs.data[where].astype(np.uint64), bits)
        return store(self, ptrs, value, mask, *rest)

    def seen_load(self, ptrs, mask, *rest, **options):
        seen.loaded(program(self), ptrs.data[chosen(ptrs, mask)].astype(np.uint64))
        return load(self, ptrs, mask, *rest, **options)

    InterpreterBuilder.create_masked_store = seen_store
    InterpreterBuilder.create_masked_load = seen_load
    try:
        yield
    finally:
        InterpreterBuilder.create_masked_store = store
        InterpreterBuilder.create_masked_load = load


def raced_message(raced: tuple[int, int, int], kernel: str, grid: tuple, args: dict) -> str:
    """What race() found, in the terms of the launch: its programs' ids and the argument whose
    tensor holds the element."""
    address, reader, other = raced

    def pid(linear: int) -> tuple[int, ...]:
        ids, rest = [], linear
        for programs in grid:
            ids.append(rest % programs)
            rest //= programs
        return tuple(ids)

    where = "a buffer"
    for name, t in args.items():
        if isinstance(t, torch.Tensor) and t.numel():
            start = t.untyped_storage().data_ptr()
            if start <= address < start + t.untyped_storage().nbytes():
                where = f"`{name}` (element {(address - t.data_ptr()) // t.element_size()})"
                break
    return (
        f"programs {pid(reader)} and {pid(other)} of a launch of {kernel}{list(grid)} both "
        f"stored into {where}, different values, and program {pid(reader)} loaded it back "
        "after its own store. The interpreter runs one program at a time, so each loaded its "
        "own value; a GPU runs them at once, and one can load the other's. Give each program "
        "elements of its own (index the buffer by every program id, batch and head included), "
        "or keep the value in a register."
    )


# ---------------------------------------------------------------------------------------------
# Storages: the judge's buffers and the case's temporaries
# ---------------------------------------------------------------------------------------------


def open_buffers(table: list[dict], fds: list[int]) -> dict[str, torch.Tensor]:
    """Map the judge's buffers: CPU ones from their memfd, GPU ones from their CUDA IPC handle."""
    buffers, fds = {}, list(fds)
    for entry in table:
        if entry["ipc"] is None:
            fd = fds.pop(0)
            mapped = mmap.mmap(fd, entry["nbytes"])
            os.close(fd)
            raw = torch.frombuffer(mapped, dtype=torch.uint8)
        else:
            rebuild, args = pickle.loads(base64.b64decode(entry["ipc"]))  # the judge's own
            raw = rebuild(*args)
        buffers[f"b{entry['id']}"] = raw
    return buffers


def dtype_of(name) -> torch.dtype:
    dtype = getattr(torch, str(name), None)
    if not isinstance(dtype, torch.dtype):
        raise Refused(f"{name!r} is not a torch dtype")
    return dtype


class Storages:
    def __init__(self, buffers: dict[str, torch.Tensor], device: str):
        self.storages = {ref: t.untyped_storage() for ref, t in buffers.items()}
        self.device = device

    def allocate(self, ref: str, nbytes: int) -> None:
        """A temporary the host allocated: all ones, NaN in every float format, until a fill,
        a copy or a kernel writes it, so that reading it unwritten shows."""
        if ref in self.storages:
            raise Refused(f"the record allocates {ref} twice")
        if type(nbytes) is not int or nbytes < 0:
            raise Refused(f"the record allocates {ref} of {str(nbytes)[:40]} bytes")
        # with room after it: on the interpreter a store a little past its end would otherwise
        # land in the allocator's own records and crash the process, at random, where the
        # values it leaves say what went wrong
        raw = torch.full((nbytes + TEMPORARY_SLACK,), 255, dtype=torch.uint8, device=self.device)
        self.storages[ref] = raw.untyped_storage()

    def values(self, step: dict) -> torch.Tensor:
        """The values of a tensor the host made from Python values, shaped as it is, with an
        address in the runner's memory ({"ref", "byte"}) turned into the same place in the
        judge's buffer: a pointer table then points where the kernel's arguments do."""
        spec = step["into"]
        values = step.get("values")
        if not isinstance(values, list) or len(values) != math.prod(spec["shape"]):
            raise Refused("the record sends values that do not fill their tensor")
        try:
            values = [self.address(v) if isinstance(v, dict) else v for v in values]
            return torch.tensor(values, dtype=dtype_of(spec["dtype"])).reshape(spec["shape"])
        except (TypeError, ValueError, RuntimeError, OverflowError) as e:
            raise Refused(f"the record sends values the judge cannot take: {e}") from None

    def address(self, place: dict) -> int:
        storage = self.storages.get(place.get("ref"))
        byte = place.get("byte")
        if storage is None or type(byte) is not int or not 0 <= byte <= storage.nbytes():
            raise Refused("the record sends an address in no tensor it allocated")
        return storage.data_ptr() + byte

    def view(self, spec: dict) -> torch.Tensor:
        ref = spec.get("ref")
        if ref is None:
            raise Refused(
                "a tensor that was not made by torch's allocation functions in the host code "
                "(from numpy, or with torch's dispatch turned off) was passed on: the judge "
                "cannot know its values"
            )
        if ref not in self.storages:
            raise Refused(f"the record names a tensor {ref} it never allocated")
        dtype = dtype_of(spec["dtype"])
        empty = torch.empty(0, dtype=dtype, device=self.device)
        try:
            return empty.set_(self.storages[ref], spec["offset"], spec["shape"], spec["stride"])
        except RuntimeError as e:
            raise Refused(f"the record has a view outside its tensor: {e}") from None


# ---------------------------------------------------------------------------------------------
# Running a record
# ---------------------------------------------------------------------------------------------


class Executor:
    def __init__(self):
        self.module: LoadedKernels | None = None
        self.probing: tuple[str, LoadedKernels] | None = None  # (the judge's source, loaded)
        self.device = "cuda" if ON_GPU else "cpu"
        # the launch a request is running, and its place among the request's launches: a GPU
        # fault is reported with the launch that made it
        self.launching: dict | None = None
        self.launches = (0, 0)
        self.read_backs = ReadBacks()
        # while a record runs on the interpreter: the regions whose reads outside are noted,
        # and what was found, to which each temporary the record allocates is added
        self.watched: tuple[list, dict] | None = None

    def op_load(self, message: dict, buffers: dict) -> dict:
        self.module = LoadedKernels(message["module"], message["shown_as"], message["left_out"])
        self.probing = None
        return {"kernels": sorted(self.module.kernels)}

    def kernel(self, name: str):
        kernel = self.module.kernels.get(name)
        if kernel is None:
            left_out = "; ".join(self.module.left_out)
            raise Refused(
                f"{name} is not a @triton.jit function the judge could read in your file"
                f"{': ' + left_out if left_out else ''}"
            )
        return kernel

    def argument(self, value, storages: Storages):
        if isinstance(value, dict) and "tensor" in value:
            return storages.view(value)
        if isinstance(value, dict) and "descriptor" in value:
            from triton.tools.tensor_descriptor import TensorDescriptor

            base = storages.view(value["base"])
            misaligned = tma_misalignment(base.data_ptr(), base.element_size(), value["strides"])
            if misaligned:
                raise BeyondTheGpu(misaligned)
            return TensorDescriptor(
                base,
                value["shape"],
                value["strides"],
                value["block_shape"],
                padding=value.get("padding", "zero"),
            )
        if isinstance(value, dict) and "jit" in value:
            return self.kernel(str(value["jit"]))
        if isinstance(value, dict) and isinstance(value.get("tuple"), list):
            return tuple(self.argument(item, storages) for item in value["tuple"])
        if isinstance(value, dict) and "dtype" in value:
            dtype = constexpr_value(value, {})
            if dtype is None:
                raise Refused(f"{value['dtype']!r} is not a dtype triton knows")
            return dtype
        if isinstance(value, dict):
            raise Refused(f"an argument the judge cannot give a kernel: {value.get('repr', '?')}")
        return value

    def launch(self, step: dict, storages: Storages) -> None:
        kernel = self.kernel(step["kernel"])
        grid = tuple(int(g) for g in step["grid"])
        if not 1 <= len(grid) <= 3 or min(grid) < 0:
            raise Refused(f"a grid of {len(grid)} dimensions, {grid}")
        for axis, (programs, most) in enumerate(zip(grid, GRID_LIMITS, strict=False)):
            if programs > most:
                raise BeyondTheGpu(
                    f"the grid {grid} asks for {programs} programs along axis {axis}, and a CUDA "
                    f"grid holds at most {most} there (2^31 - 1 along axis 0, 65535 along axes "
                    "1 and 2): put the longest dimension on axis 0, or let each program take "
                    "several blocks."
                )
        names = set(kernel.arg_names)
        args, options = {}, {}
        for name, value in step["args"].items():
            if name in names:
                args[name] = self.argument(value, storages)
            elif name in OPTIONS and isinstance(value, int):
                options[name] = value
        done, total = self.launches
        self.launches = (done + 1, total)
        scalars = {k: v for k, v in (args | options).items() if type(v) is int}
        self.launching = {"kernel": step["kernel"], "grid": grid, "scalars": scalars}
        self.read_backs.clear()
        try:
            kernel[grid](**args, **options)
            if ON_GPU:
                torch.cuda.synchronize()  # a fault surfaces here, at the launch that made it
        except OutOfResources:
            # autotune's timing of a config that cannot load on this GPU gives it an infinite
            # time and goes on to the next
            if not step.get("benchmark"):
                raise
        self.launching = None
        raced = self.read_backs.race()
        self.read_backs.clear()
        if raced:
            raise RaceOnAGpu(raced_message(raced, step["kernel"], grid, args))

    def op_replay(self, message: dict, buffers: dict) -> dict:
        storages = Storages(buffers, self.device)
        regions, found = self.guarded_regions(message["guarded"], storages), {}
        for region in regions:
            found[region[0]] = set()
        writers = message.get("writers") or {}
        stored = self.writer_regions(writers, message["guarded"], storages)
        # the judge's own records of who stored what: no step of the record (the learner's to
        # forge) may name them, nor may a kernel's pointers reach them
        for spec in writers.values():
            storages.storages.pop(spec["ref"], None)
        # a GPU sees no read outside an input; it faults on one past the end of a mapped range
        past_end = message.get("past_end") if ON_GPU else None
        ending = (
            PastTheEnd(past_end, message["guarded"], storages)
            if past_end
            else contextlib.nullcontext()
        )
        self.launches = (0, sum(step.get("step") == "launch" for step in message["steps"]))
        seen = reads_back(self.read_backs)
        self.watched = (regions, found) if INTERPRETING else None
        try:
            fenced = inside_the_tensors(storages)
            with fenced, reads_outside(regions, found), stores_by_program(stored), seen, ending:
                for step in message["steps"]:
                    self.run_step(step, storages)
                for fetch in message.get("fetch") or []:
                    storages.view(fetch["into"]).copy_(storages.view(fetch["from"]))
        finally:
            self.watched = None
        if ON_GPU:
            torch.cuda.synchronize()  # a fault of this case is reported as this case's
        return {
            "reads_outside": {name: sorted(offsets)[:1000] for name, offsets in found.items()},
            "reads_outside_count": {name: len(offsets) for name, offsets in found.items()},
        }

    def run_step(self, step: dict, storages: Storages) -> None:
        kind = step.get("step")
        if kind == "alloc":
            storages.allocate(step["ref"], step["nbytes"])
            self.watch_past_the_end(step["ref"], step["nbytes"], storages)
        elif kind == "fill":
            storages.view(step["into"]).fill_(step["value"])
        elif kind == "copy":
            storages.view(step["into"]).copy_(storages.view(step["from"]))
        elif kind == "values":
            storages.view(step["into"]).copy_(storages.values(step))
        elif kind == "host_wrote":
            into = storages.view(step["into"])
            into.fill_(float("nan") if into.dtype.is_floating_point else -1)
        elif kind == "launch":
            self.launch(step, storages)
        else:
            raise Refused(f"a step the judge does not know: {kind!r}")

    def watch_past_the_end(self, ref: str, nbytes: int, storages: Storages) -> None:
        """On the interpreter, a load in the slack after a temporary the host allocated (a
        buffer of statistics, a workspace) is noted under its ref, in bytes from its start, as
        a load in a guarded tensor's padding is: on a GPU it reads another tensor's memory."""
        if self.watched is None:
            return
        import numpy as np

        regions, found = self.watched
        if ref in found:  # a judge's tensor's name: its record of stray reads is not the record's
            raise Refused(f"the record allocates {ref}, the name of one of the judge's tensors")
        inside = np.zeros(nbytes + TEMPORARY_SLACK, dtype=bool)
        inside[:nbytes] = True
        regions.append((ref, storages.storages[ref].data_ptr(), 1, inside, 0))
        found[ref] = set()

    def writer_regions(self, writers: dict, guarded: dict, storages: Storages) -> list:
        """(first address, element size, writers as numpy) for each guarded tensor whose
        writers the judge asked for: one int32 of its own per element of that buffer."""
        if not INTERPRETING:
            return []
        regions = []
        for name, spec in writers.items():
            if name not in guarded:
                continue
            base = self.whole_buffer(guarded[name], storages)
            table = storages.view(spec)
            if table.dtype == torch.int32 and table.numel() == base.numel():
                regions.append((base.data_ptr(), base.element_size(), table.numpy()))
        return regions

    def whole_buffer(self, spec: dict, storages: Storages) -> torch.Tensor:
        """The whole buffer a guarded tensor lies in, as one flat tensor of its dtype."""
        size = storages.storages[spec["ref"]].nbytes() // dtype_of(spec["dtype"]).itemsize
        return storages.view(spec | {"shape": [size], "stride": [1], "offset": 0})

    def guarded_regions(self, guarded: dict, storages: Storages) -> list:
        """(name, first address, element size, which elements are inside, offset of the
        first) for each guarded tensor, to tell its padding from its elements."""
        if not INTERPRETING:
            return []
        regions = []
        for name, spec in guarded.items():
            base = self.whole_buffer(spec, storages)
            inside = torch.zeros(base.numel(), dtype=torch.bool)
            inside.as_strided(spec["shape"], spec["stride"], spec["offset"]).fill_(True)
            regions.append(
                (name, base.data_ptr(), base.element_size(), inside.numpy(), spec["offset"])
            )
        return regions

    def op_probe(self, message: dict, buffers: dict) -> dict:
        """Run a kernel of the judge's, appended to the learner's kernels so that it can call
        their helper message["calls"], on one axis of message["programs"] programs."""
        self.kernel(message["calls"])  # refused by name where the file has no such helper
        source = message["source"]
        if self.probing is None or self.probing[0] != source:
            loaded = LoadedKernels(
                self.module.text + source, self.module.shown_as, self.module.left_out
            )
            self.probing = (source, loaded)
        storages = Storages(buffers, self.device)
        args = {
            name: storages.view(value) if isinstance(value, dict) else value
            for name, value in message["args"].items()
        }
        with inside_the_tensors(storages):
            self.probing[1].kernels[message["kernel"]][(message["programs"],)](**args)
        if ON_GPU:
            torch.cuda.synchronize()
        return {}

    def handle(self, message: dict, fds: list[int]) -> dict:
        # the buffers stay mapped until the reply is sent: after a CUDA fault, releasing an IPC
        # buffer can crash this process, and the judge would never hear why
        try:
            self.buffers = open_buffers(message.get("buffers", []), fds)
        except Exception as e:  # noqa: BLE001 - before anything of the learner's ran: the judge's
            failed = {"type": type(e).__name__, "message": str(e)[:2000], "judges": True}
            return {"ok": False, "error": failed | {"fatal": is_fatal(e)}}
        self.launching = None
        try:
            return {"ok": True, **getattr(self, "op_" + message["op"])(message, self.buffers)}
        except BaseException as e:  # noqa: BLE001 - whatever a kernel raises goes back
            return {"ok": False, "error": self.describe_error(e)}

    def describe_error(self, e: BaseException) -> dict:
        """The error, and the line of the learner's file it points at: the kernel module keeps
        every kernel on its original lines. The interpreter raises InterpreterError(repr(error))
        from the kernel's own error, once more at each @triton.jit helper it passes through."""
        from triton.runtime.interpreter import InterpreterError

        chain = [e]
        while isinstance(chain[-1], InterpreterError) and isinstance(
            chain[-1].__cause__, Exception
        ):
            chain.append(chain[-1].__cause__)
        cause = chain[-1]
        shown = self.module.filename if self.module else None
        frames = [
            f
            for error in chain
            for f in traceback.extract_tb(error.__traceback__)
            if f.filename == shown
        ]
        where = frames[-1] if frames else None
        return {
            "type": type(cause).__name__,
            "message": compile_error_text(cause)[:4000],
            "refused": isinstance(e, Refused),
            "limit": isinstance(cause, BeyondTheGpu),
            "race": isinstance(cause, RaceOnAGpu),
            "outside": cause.access if isinstance(cause, OutsideEveryTensor) else None,
            "line": where.lineno if where else None,
            "code": (where.line or "").strip()[:300] if where else "",
            "fatal": is_fatal(e),
            "resources": resources_of(e),
            "launch": self.launch_running() if is_fatal(e) else None,
        }

    def launch_running(self) -> dict | None:
        """The launch that was running: its kernel, grid, integer arguments and place."""
        if self.launching is None:
            return None
        index, total = self.launches
        return self.launching | {"index": index, "of": total}


def resources_of(e: BaseException) -> dict | None:
    """What a kernel needed and the GPU has, when it could not be loaded (OutOfResources)."""
    if not isinstance(e, OutOfResources):
        return None
    return {"name": str(e.name), "required": int(e.required), "limit": int(e.limit)}


def is_fatal(e: BaseException) -> bool:
    """A CUDA fault leaves this process's context unusable: the judge starts a fresh one."""
    text = str(e).lower()
    return any(
        s in text
        for s in ("cuda error", "illegal memory access", "unspecified launch failure", "misaligned")
    )


def descriptor_scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Global memory for the tensor descriptors a kernel makes itself (tl.make_tensor_descriptor):
    what a host's triton.set_allocator gives in the runner, the judge gives here."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


def make_the_cuda_context() -> None:
    """Now, before the hello: the judge starts this process as it begins the first case, so
    the CUDA context and triton's driver are made while the judge makes its own and the runner
    records the call, not after, in the first case's time."""
    torch.empty(1, device="cuda")
    triton.runtime.driver.active.get_current_target()


def main() -> int:
    sock = socket.socket(fileno=int(sys.argv[1]))
    if INTERPRETING:
        adapt_interpreter()
    elif ON_GPU:
        triton.set_allocator(descriptor_scratch)
        make_the_cuda_context()
    executor = Executor()
    sock.sendmsg([json.dumps({"ok": True, "ready": True}).encode()])
    while True:
        data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 64)
        if not data:
            return 0  # the judge is gone
        reply = executor.handle(json.loads(data), fds)
        sock.sendmsg([json.dumps(reply, default=repr).encode()])
        if not reply["ok"] and reply["error"]["fatal"]:
            os._exit(0)  # a CUDA fault: no clean-up can work, and the judge has the reply
        executor.buffers = None


if __name__ == "__main__":
    sys.exit(main())
