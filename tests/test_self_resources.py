"""Every kernel launch of the reference solutions, and every autotune config T4 offers, compiles
for each GPU that learners are likely to have, and fits in its shared memory.

A kernel that asks for more shared memory than a GPU's opt-in maximum per block does not load
there: Triton raises OutOfResources, and the reference would fail a learner whose GPU is
smaller than the H200 it was written on. The autotuner skips a config that does not load, so an
autotune list may hold configs too big for some GPU, as long as one fits each.

No GPU is needed: triton.compile with an explicit GPUTarget compiles for any NVIDIA target, and
reports the shared memory the kernel needs. The launches are not written out here: each host
function is called on meta tensors of its graded and benchmarked shapes, with its kernel
replaced by a recorder, so that what is compiled is what the reference launches.

Compiling stops as soon as shared memory is known: once Triton has allocated it and lowered the
kernel to MLIR's LLVM dialect, before LLVM and ptxas, which on sm_75 (where tl.dot becomes FMA
loops) took over two minutes for T4's configs alone. What that loses: registers and spills,
which only ptxas counts (they cannot keep a kernel from loading: Triton gives ptxas the block
size, and ptxas spills rather than use more than the 64K registers of a block), and the errors
that only LLVM or ptxas would raise.
"""

import hashlib
import importlib.util
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
import triton
from triton.backends.compiler import GPUTarget
from triton.runtime.cache import get_cache_manager
from triton.runtime.jit import JITFunction

from drills import catalog

# Maximum shared memory per thread block with the opt-in that Triton makes, in bytes: the CUDA
# C++ Programming Guide, "Technical Specifications per Compute Capability" (227 KB on 9.0,
# 163 KB on 8.0, 99 KB on 8.6, 8.9 and 12.0, 64 KB on 7.5).
SHARED_LIMITS = {
    "sm_75": 65536,  # T4 (free cloud notebooks), RTX 20xx
    "sm_80": 166912,  # A100
    "sm_86": 101376,  # RTX 30xx
    "sm_89": 101376,  # RTX 40xx, L4
    "sm_90": 232448,  # H100, H200
    "sm_120": 101376,  # RTX 50xx
}
TARGETS = list(SHARED_LIMITS)
# The persistent kernel runs on compute capability 9.x only (is_hopper in solutions/t4_matmul_persistent.py)
PERSISTENT_TARGETS = ["sm_90"]


# ---------------------------------------------------------------------------------------------
# The launches (recorded in the compiling process, see serve())
# ---------------------------------------------------------------------------------------------

# The row lengths of tests/test_t2_softmax.py's cases and of its BENCH shapes.
T2_ROW_LENGTHS = [1, 2, 17, 33, 64, 100, 128, 200, 256, 300, 781, 1000, 1024, 4096, 4097, 5000]
T2_ROW_LENGTHS += [16384, 65536]
# T3's benchmark shapes: multiples of 16, and 1000 x 3000 x 2000, whose M and N are not.
T3_SHAPES = [(4096, 4096, 4096), (1000, 3000, 2000)]
# One T4 launch stands for all: with every size, stride and address a multiple of 16 bytes and
# both operands row-major, the compiler copies the operands asynchronously and pipelines them
# through shared memory num_stages deep, which needs the most (b = w.t(), or sizes that are not
# multiples of 8, needed a third less for 128 x 256 x 64 on sm_86).
T4_SHAPE = (4096, 4096, 4096)
# The persistent kernel's NUM_SMS, read from the device by the host: an H100's or H200's.
HOPPER_SMS = 132


class Recorder:
    """Stands in for a kernel: kernel[grid](*args, **kwargs) records the call and runs nothing."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.calls.append((args, kwargs))


def recorded(module, name: str, host, *others: str) -> list[tuple]:
    """(kernel, args, kwargs) of each launch of module.<name> that host(module) makes; the
    kernels named in `others`, launched by the same host code, are recorded after it."""
    recorders = {n: Recorder(getattr(module, n)) for n in (name, *others)}
    for n, recorder in recorders.items():
        setattr(module, n, recorder)
    try:
        host(module)
    finally:
        for n, recorder in recorders.items():
            setattr(module, n, recorder.kernel)
    return [(r.kernel, args, kwargs) for r in recorders.values() for args, kwargs in r.calls]


def meta(*shape, dtype=torch.float16) -> torch.Tensor:
    """A tensor with a shape, strides and dtype but no memory. Its data_ptr() is 0: aligned, like
    every tensor torch's CUDA allocator hands out."""
    return torch.empty(shape, dtype=dtype, device="meta")


def t1_launches(ref) -> list[tuple]:
    def host(m):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for n in (2**20, 1000):  # a benchmark size, and one with a partial last block
                m.add(meta(n, dtype=dtype), meta(n, dtype=dtype))

    return recorded(ref, "add_kernel", host)


def t2_launches(ref) -> list[tuple]:
    def host(m):
        for dtype in (torch.float32, torch.float16):
            for n_cols in T2_ROW_LENGTHS:
                m.softmax(meta(4096, n_cols, dtype=dtype))

    return recorded(ref, "softmax_kernel", host)


def t2_split_launches(ref) -> list[tuple]:
    """The split kernel of T2's benchmark reference, at the row length that it splits."""

    def host(m):
        for dtype in (torch.float32, torch.float16):
            m.launch_split(meta(1024, 65536, dtype=dtype), meta(1024, 65536, dtype=dtype))

    return recorded(ref, "softmax_split_kernel", host)


def t3_launches(ref) -> list[tuple]:
    def host(m):
        for M, N, K in T3_SHAPES:
            m.matmul(meta(M, K), meta(K, N))

    return recorded(ref, "matmul_kernel", host)


def t4_launches(ref) -> list[tuple]:
    M, N, K = T4_SHAPE
    return recorded(ref, "matmul_kernel", lambda m: m.matmul(meta(M, K), meta(K, N)))


def t4_persistent_launches(ref) -> list[tuple]:
    """Both layouts of b: matmul takes the persistent kernel for either on Hopper."""
    M, N, K = T4_SHAPE

    def host(m):
        m.launch_persistent(meta(M, K), meta(K, N), meta(M, N), None)
        m.launch_persistent(meta(M, K), meta(N, K).t(), meta(M, N), None)

    launches = recorded(ref, "matmul_persistent_kernel", host)
    return [(kernel, args, {**kwargs, "NUM_SMS": HOPPER_SMS}) for kernel, args, kwargs in launches]


def t4_split_k_launches(ref) -> list[tuple]:
    """The persistent module's split-K kernel, at a few rows of a, for both layouts of b."""
    M, N, K = 16, 4096, 4096

    def host(m):
        m.launch_split_k(meta(M, K), meta(K, N), meta(M, N), None)
        m.launch_split_k(meta(M, K), meta(N, K).t(), meta(M, N), meta(N))

    return recorded(ref, "matmul_split_k_kernel", host)


def t5_launches(ref) -> list[tuple]:
    """Both kernels, at the row lengths of T5's benchmark, in each dtype's block."""

    def host(m):
        for dtype in (torch.float32, torch.float16):
            for n_rows, n_cols in [(1024, 65536), (8, 2**21)]:
                m.softmax(meta(n_rows, n_cols, dtype=dtype))

    return recorded(ref, "part_stats_kernel", host, "normalize_kernel")


def load_fresh(path: Path, name: str):
    """The module at path, imported anew under its own name (the interpreter is off here)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch_groups() -> dict[str, list[tuple]]:
    """The launches each test compiles, by the name the test asks for them."""
    ref = {d.id: load_fresh(d.source("solutions"), f"resources_{d.slug}") for d in catalog.DRILLS}
    stub = load_fresh(catalog.find("t4").stub, "resources_t4_stub")
    [t4] = t4_launches(ref["t4"])
    persistent = load_fresh(
        catalog.ROOT / "solutions" / "t4_matmul_persistent.py", "resources_t4_fast"
    )
    return {
        "t1": t1_launches(ref["t1"]),
        "t2": t2_launches(ref["t2"]),
        "t2-split": t2_split_launches(
            load_fresh(catalog.ROOT / "solutions" / "t2_softmax_split.py", "resources_t2_split")
        ),
        "t3": t3_launches(ref["t3"]),
        "t5": t5_launches(ref["t5"]),
        "t4": [t4],
        # the stub's kernel is the learner's to write: the stub's configs are compiled with the
        # reference's kernel, whose needs the learner's will share
        "t4-stub": [(*t4, stub.matmul_kernel.configs)],
        "t4-persistent": t4_persistent_launches(persistent) + t4_split_k_launches(persistent),
    }


# ---------------------------------------------------------------------------------------------
# Compiling (in the compiling process)
# ---------------------------------------------------------------------------------------------


def compiles_of(kernel, args: tuple, kwargs: dict, configs: list | None = None) -> list[dict]:
    """One compile for each config the launch may run with: each of the autotuner's configs (or
    of `configs`) with the values its heuristics compute, or else the launch's own options."""
    heuristics = []
    while not isinstance(kernel, JITFunction):  # under @triton.autotune and @triton.heuristics
        if hasattr(kernel, "configs"):
            configs = configs or kernel.configs
        if hasattr(kernel, "values"):
            heuristics.append(kernel.values)
        kernel = kernel.fn
    launch = {**dict(zip(kernel.arg_names, args, strict=False)), **kwargs}
    compiles = []
    for config in configs or [None]:
        values = dict(launch)
        if config is not None:
            values.update(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)
        for rules in heuristics:
            values.update({name: rule(values) for name, rule in rules.items()})
        compiles.append(specialised(kernel, values))
    return compiles


def specialised(kernel: JITFunction, values: dict) -> dict:
    """What triton.compile needs, specialised as a launch specialises: an integer 1 and None
    become constants, and a pointer or integer that is a multiple of 16 is marked so."""
    signature, constexprs, attrs = {}, {}, {}
    for index, param in enumerate(kernel.params):
        value = values.get(param.name, param.default)
        if param.is_constexpr or value is None or (type(value) is int and value == 1):
            signature[param.name] = "constexpr"
            constexprs[param.name] = value
            continue
        signature[param.name], aligned = argument_type(value)
        if aligned:
            attrs[(index,)] = [["tt.divisibility", 16]]
    options = {k: values[k] for k in ("num_warps", "num_stages") if k in values}
    return {
        "kernel": kernel,
        "signature": signature,
        "constexprs": constexprs,
        "attrs": attrs,
        "options": options,
        "label": label(kernel, signature, constexprs, attrs, options),
    }


def argument_type(value) -> tuple[str, bool]:
    """Triton's type for a launch argument, and whether it (or the address) is a multiple of 16."""
    if isinstance(value, torch.Tensor):
        names = {
            torch.float32: "fp32",
            torch.float16: "fp16",
            torch.bfloat16: "bf16",
            torch.int32: "i32",  # T2's split kernel's counts
        }
        return "*" + names[value.dtype], value.data_ptr() % 16 == 0
    if isinstance(value, int) and not isinstance(value, bool):
        return ("i32" if -(2**31) <= value < 2**31 else "i64"), value % 16 == 0
    raise TypeError(f"no launch of these kernels passes {value!r}")


def label(kernel, signature, constexprs, attrs, options) -> str:
    """How a message names a compile: a matmul config by its blocks, stages and warps; another
    launch by its pointer types, constants and the integers that are not multiples of 16."""
    warps, stages = options.get("num_warps", 4), options.get("num_stages", 3)
    if "BLOCK_SIZE_M" in constexprs:
        blocks = "x".join(str(constexprs[f"BLOCK_SIZE_{d}"]) for d in "MNK")
        layout = {True: ", b = w.t()", False: ", b row-major"}.get(constexprs.get("B_KMAJOR"), "")
        return f"{blocks}, {stages} stages, {warps} warps{layout}"
    types = "/".join(sorted({t for t in signature.values() if t.startswith("*")}))
    constants = " ".join(f"{k}={v}" for k, v in constexprs.items() if v is not None)
    odd = [
        name
        for index, (name, kind) in enumerate(signature.items())
        if kind.startswith("i") and (index,) not in attrs
    ]
    odd_note = f" ({', '.join(odd)} not multiples of 16)" if odd else ""
    stages_note = f", {stages} stages" if "num_stages" in options else ""
    return f"{kernel.__name__} {types} {constants}, {warps} warps{stages_note}{odd_note}"


class SharedKnown(Exception):
    """Raised where compiling stops, with the shared memory the kernel needs."""


def stop_before_llvm() -> None:
    """Make triton.compile raise SharedKnown when it would turn the LLVM dialect into LLVM IR,
    the step after Triton allocates shared memory (make_llir, triton/backends/nvidia/compiler.py).
    For this process only; Triton's cache never holds the partial compile as a kernel."""
    from triton._C.libtriton import llvm

    def to_module(module, context):
        raise SharedKnown(module.get_int_attr("ttg.shared") or 0)

    llvm.to_module = to_module


def shared_memory(spec: dict, target: str) -> int:
    """The bytes of shared memory the compile needs on target, kept in Triton's cache, where
    triton.compile would keep the kernel, for the next run."""
    source = triton.compiler.ASTSource(
        fn=spec["kernel"],
        signature=spec["signature"],
        constexprs=spec["constexprs"],
        attrs=spec["attrs"],
    )
    options = sorted(spec["options"].items())
    key = f"{source.hash()}-{target}-{options}-{triton.__version__}-shared memory"
    cache = get_cache_manager(hashlib.sha256(key.encode()).hexdigest())
    if cached := cache.get_file("shared.json"):
        return json.loads(Path(cached).read_text())
    gpu = GPUTarget("cuda", int(target.removeprefix("sm_")), 32)
    try:
        compiled = triton.compile(source, target=gpu, options=spec["options"])
    except SharedKnown as known:
        shared = known.args[0]
    else:
        # Triton's cache held the whole kernel (a GPU compiled it before): it says as much
        shared = compiled.metadata.shared
    cache.put(json.dumps(shared), "shared.json", binary=False)
    return shared


COMPILES: list[dict] = []  # filled before the workers fork, which find them by index


def compile_one(index_and_target: tuple[int, str]) -> dict:
    index, target = index_and_target
    result = {"label": COMPILES[index]["label"], "shared": None, "error": None}
    try:
        result["shared"] = shared_memory(COMPILES[index], target)
    except Exception as e:  # noqa: BLE001 - the test reports any compiler failure
        result["error"] = f"{type(e).__name__}: {str(e).strip()[:2000]}"
    return result


def numbered(groups: dict[str, list[tuple]]) -> dict[str, list[int]]:
    """Put each distinct compile of the groups' launches in COMPILES once (the stub's configs
    are mostly the reference's, row lengths 781 and 1000 compile alike); for each group, the
    indices of its compiles."""
    numbers: dict[tuple, int] = {}
    numbered_groups: dict[str, list[int]] = {}
    for group, launches in groups.items():
        numbered_groups[group] = []
        for spec in (spec for launch in launches for spec in compiles_of(*launch)):
            key = (spec["kernel"], *(repr(spec[k]) for k in ("signature", "constexprs", "attrs")))
            key += (repr(spec["options"]),)
            if key not in numbers:
                numbers[key] = len(COMPILES)
                COMPILES.append(spec)
            if numbers[key] not in numbered_groups[group]:
                numbered_groups[group].append(numbers[key])
    return numbered_groups


def serve() -> None:
    """The compiling process: reads {"group": ..., "target": ...} lines on stdin and answers each
    with one line: the group's compiles for the target, with their shared memory or error."""
    groups = numbered(launch_groups())
    stop_before_llvm()
    # Triton hashes its own files on its first compile in a process (3 s): done here, once,
    # before the workers fork
    compile_one((0, TARGETS[0]))
    results: dict[tuple[int, str], dict] = {}
    with multiprocessing.get_context("fork").Pool(os.cpu_count()) as pool:
        for line in sys.stdin:
            request = json.loads(line)
            wanted = [(number, request["target"]) for number in groups[request["group"]]]
            new = [job for job in wanted if job not in results]
            results.update(zip(new, pool.map(compile_one, new, chunksize=1), strict=True))
            print(json.dumps([results[job] for job in wanted]), flush=True)


# ---------------------------------------------------------------------------------------------
# The tests (in pytest's process)
# ---------------------------------------------------------------------------------------------


class Compiler:
    """This file run as a script, without TRITON_INTERPRET, compiling for the tests.

    With TRITON_INTERPRET=1 (this suite's setting without a GPU) @triton.jit makes interpreted
    functions, triton.language's own helpers included, which cannot be compiled. The variable is
    read when a function is decorated, so the kernels must be imported by a process started
    without it. One per pytest process (per xdist worker), asked by each test for the group and
    target it checks, so that no compile is done twice.
    """

    def __init__(self, errors):
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        # the drills package, before what PYTHONPATH held (another triton, for make versions)
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(catalog.ROOT), env.get("PYTHONPATH")])
        )
        self.errors = errors
        self.process = subprocess.Popen(
            [sys.executable, "-B", __file__],
            cwd=catalog.ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
        )

    def compile(self, group: str, target: str) -> list[dict]:
        try:
            self.process.stdin.write(json.dumps({"group": group, "target": target}) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
        except BrokenPipeError:  # it died answering an earlier test
            line = ""
        if not line:
            self.errors.seek(0)
            pytest.fail(f"the compiling process died:\n{self.errors.read()[-3000:]}")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


@pytest.fixture(scope="module")
def compiler():
    with tempfile.TemporaryFile("w+") as errors:
        compiler = Compiler(errors)
        yield compiler
        compiler.close()


def kb(size: int) -> str:
    return f"{size / 1024:g} KB"


def compiled(compiler: Compiler, group: str, target: str) -> list[dict]:
    """The group's compiles for target; fails naming each one that does not compile."""
    results = compiler.compile(group, target)
    failed = [f"  {r['label']}: {r['error']}" for r in results if r["error"]]
    assert not failed, f"{group} does not compile for {target}:\n" + "\n".join(failed)
    return results


def too_big(results: list[dict], target: str) -> list[str]:
    limit = SHARED_LIMITS[target]
    return [
        f"  {r['label']}: needs {kb(r['shared'])} of shared memory, {target} has {kb(limit)}"
        for r in results
        if r["shared"] > limit
    ]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("drill", ["t1", "t2", "t2-split", "t3", "t5"])
def test_every_reference_launch_fits(compiler, drill, target):
    # a launch with fixed constants has no other config to fall back on
    big = too_big(compiled(compiler, drill, target), target)
    assert not big, f"the {drill} reference does not load on {target}:\n" + "\n".join(big)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("group", ["t4", "t4-stub"])
def test_autotune_list_keeps_a_config_that_fits(compiler, group, target):
    # the autotuner skips the configs that do not load: one that does is enough
    results = compiled(compiler, group, target)
    big = too_big(results, target)
    assert len(big) < len(results), (
        f"no config of {group}'s autotune list loads on {target}:\n" + "\n".join(big)
    )


@pytest.mark.parametrize("target", PERSISTENT_TARGETS)
def test_every_persistent_config_fits(compiler, target):
    # every one, not one: tests/test_self_t4_persistent.py launches each config alone (and
    # the split-K kernel, which has one)
    big = too_big(compiled(compiler, "t4-persistent", target), target)
    assert not big, f"the persistent module does not load on {target}:\n" + "\n".join(big)


if __name__ == "__main__":
    serve()
