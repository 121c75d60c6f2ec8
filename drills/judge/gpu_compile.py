"""Compile a learner's kernels for an sm_90 (Hopper) GPU on a machine without one.

The CPU interpreter runs kernel code as Python and accepts things the GPU compiler rejects: a
helper function without @triton.jit, an fp16 accumulator carried through `acc += tl.dot(...)`,
`tl.dot` blocks smaller than 16 along K. `triton.compile` with an explicit GPUTarget needs no
GPU and no driver, so the judge compiles every kernel launch a case made, with the same
argument types, constexprs and launch options.

The judge compiles from its own reading of the learner's file: the @triton.jit functions and
the constants they use (drills.judge.source.kernel_module), never the file's other code. That takes a
process with the interpreter off (with it on, triton.language's own helpers are interpreted
functions the compiler cannot use): `python -m drills.judge.gpu_compile`, one per judge, reading one
request per line on stdin and answering one line of errors. The launches to compile come from
the runner; they only choose what to compile.

It runs triton's compiler as far as unoptimized LLVM IR: triton's own passes, which reject what
the interpreter let through, size the shared memory and lower every operation for sm_90, then
the translation to LLVM IR, with libdevice linked in. It leaves out what makes a GPU's binary
from that IR, which only makes correct IR faster or assembles it: LLVM's optimizer (O3), its PTX
code generator and ptxas, most of a compile's time (88% on triton 3.8 and 63% on 3.9 for the
18 configs of tests/positives/t4_matmul/tutorial_03.py). A kernel that triton has lowered and
one of these rejects is triton's or LLVM's fault, not the learner's (triton calls what ptxas
rejects an "Internal Triton PTX codegen error ... please share the reproducer"). Its compiles
are kept apart from a GPU's (a cache folder of their own, and a cache key of their own on
triton 3.7 and later), so that no launch ever loads the binary this leaves empty.
"""

import json
import os
import re
import select
import subprocess
import sys
import weakref

from drills import catalog
from drills.errors import explain

SM90 = ("cuda", 90, 32)  # backend, compute capability, warp size
COMPILE_LIMIT = 120  # seconds for one case's kernels
_OPTIONS = ("num_warps", "num_stages")

_TRITON_DTYPES = {
    "float32": "fp32",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float64": "fp64",
    "int32": "i32",
    "int64": "i64",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "i1",
}


# a host tensor descriptor, as triton names its type: element type and block shape
_ELEMENT_TYPES = "|".join(_TRITON_DTYPES.values())
_DESCRIPTOR = re.compile(rf"tensordesc<({_ELEMENT_TYPES})\[\d{{1,4}}(, \d{{1,4}}){{0,4}}\]>")


def _type_of(value) -> str:
    """Triton's signature string for one launch argument."""
    if isinstance(value, dict) and value.get("tensor") in _TRITON_DTYPES:
        return "*" + _TRITON_DTYPES[value["tensor"]]
    if isinstance(value, dict) and _DESCRIPTOR.fullmatch(str(value.get("descriptor"))):
        return value["descriptor"]
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -(2**31) <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"cannot describe argument {value!r}")


def constexpr_value(value):
    """A recorded constexpr value as the compiler wants it: a dtype, recorded by its triton
    name ("fp32") or its torch name ("float32"), becomes triton's; nothing else is looked up."""
    import triton.language as tl

    if isinstance(value, dict) and "dtype" in value:
        name = str(value["dtype"])
        torch_names = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64"}
        try:
            return tl.dtype(torch_names.get(name, name))
        except (ValueError, TypeError, AssertionError):
            return None
    return value


class KernelModule:
    """The learner's @triton.jit functions (the vetted text of kernel_module), made into a
    module: compiled here, run by drills.judge.executor."""

    def __init__(self, text: str, shown_as: str, left_out: list[str]):
        import linecache

        self.text, self.shown_as, self.left_out = text, shown_as, left_out
        # triton reads a kernel's source through inspect: let it find this text, under a name
        # that is no file (the learner's file may have changed since the judge read it)
        self.filename = f"<kernels of {shown_as}>"
        lines = text.splitlines(keepends=True)
        linecache.cache[self.filename] = (len(text), None, lines, self.filename)
        namespace: dict = {"__name__": "learner_kernels"}
        exec(compile(text, self.filename, "exec"), namespace)  # noqa: S102 - drills.judge.source vetted it
        self.kernels = {name: fn for name, fn in namespace.items() if _is_jit(fn)}

    def compile(self, launch: dict) -> str | None:
        """None if the launch compiles for sm_90, else the compiler's message and a hint."""
        import triton
        from triton.backends.compiler import GPUTarget

        kernel = self.kernels.get(launch["kernel"])
        if kernel is None:
            left_out = "; ".join(self.left_out)
            return (
                f"{launch['kernel']} is not a @triton.jit function the judge could read in your "
                f"file{': ' + left_out if left_out else ''}"
            )
        signature, constexprs = {}, {}
        for param in kernel.params:
            value = launch["args"].get(param.name, param.default)
            if param.is_constexpr or value is None:
                signature[param.name] = "constexpr"
                constexprs[param.name] = constexpr_value(value)
            else:
                signature[param.name] = _type_of(value)
        args = launch["args"]
        options = {k: args[k] for k in _OPTIONS if isinstance(args.get(k), int)}
        source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
        try:
            triton.compile(source, target=GPUTarget(*SM90), options=options)
        except Exception as e:  # noqa: BLE001 - any compiler failure is the learner's to read
            message = str(e).strip()
            return f"{type(e).__name__}: {message}\n{explain(message)}".rstrip()
        return None


def _is_jit(value) -> bool:
    """A @triton.jit function: compiled, or (under TRITON_INTERPRET=1) interpreted."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return isinstance(value, (JITFunction, InterpretedFunction))


class Compiler:
    """A `python -m drills.judge.gpu_compile` process of the judge's, kept for its requests."""

    def __init__(self):
        env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
        env["TRITON_CACHE_DIR"] = os.path.join(judge_cache(), "sm90-unoptimized-llvm-ir")
        self.process = subprocess.Popen(
            [sys.executable, "-B", "-m", "drills.judge.gpu_compile"],
            cwd=catalog.ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def failures(self, code, launches: list) -> list[str]:
        text, left_out = code.source.kernel_module(on_a_gpu=True)
        distinct = []
        for launch in launches:
            described = {"kernel": launch.kernel, "args": launch.args}
            if described not in distinct:
                distinct.append(described)
        request = {
            "module": text,
            "shown_as": code.shown_as,
            "left_out": [str(f) for f in left_out],
            "launches": distinct,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], COMPILE_LIMIT)
        if not ready:
            self.process.kill()
            took = f"compiling took over {COMPILE_LIMIT} s: "
            return [took + "a loop the compiler unrolls (tl.static_range), or a huge constant?"]
        line = self.process.stdout.readline()
        if not line:
            return [f"the compile check itself failed: {self._end()}"]
        return json.loads(line)

    def _end(self) -> str:
        from drills.processes import death

        self.process.kill()
        return death(self.process.wait())


# the check of each drill's suite that compiles its launches here
CHECK = "compiles for a GPU (sm_90)"
_compilers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # LearnerCode -> Compiler


def begin(code) -> None:
    """Start the compile process for `code` now, so that it imports triton while the cases
    before the compile check run."""
    if code not in _compilers or _compilers[code].process.poll() is not None:
        _compilers[code] = Compiler()


def failures(code, launches: list) -> list[str]:
    """Compile each distinct launch; the messages of those that fail."""
    begin(code)
    return _compilers[code].failures(code, launches)


def check_compiles(case) -> None:
    """Fail the test unless the case (a drills.judge.testing.Case) passes and every kernel it launches
    compiles for a GPU: the points are for a working kernel that a GPU would also accept.

    On a GPU, launching compiles for real, so running the case is the check. On the
    interpreter, the case's launches are compiled for sm_90 by the judge.
    """
    import pytest

    from drills import runtime
    from drills.judge.testing import failure, in_file_lines, watch

    before = {name: g.snapshot() for name, g in case.inputs.items()}
    watched = watch(case, with_out=True)
    wrong = failure(case, watched, before)
    if wrong:
        pytest.fail(f"case {case.name}: {wrong}", pytrace=False)
    if runtime.current().is_gpu:
        return
    errors = failures(case.fn.code, watched.launches)
    if errors:
        pytest.fail(
            f"case {case.name}: runs on the CPU interpreter but does not compile for a GPU "
            f"(sm_90):\n{in_file_lines(case, errors[0])}",
            pytrace=False,
        )


def judge_cache() -> str:
    """Where the judge's processes keep triton's compiled kernels; made now if it is not there
    yet, so that a runner cannot be first to make it."""
    default = os.path.join(os.path.expanduser("~"), ".triton", "cache")
    cache = os.environ.get("TRITON_CACHE_DIR") or default
    os.makedirs(cache, mode=0o700, exist_ok=True)
    return cache


def stop_at_llvm_ir() -> None:
    """End this process's compiles at unoptimized LLVM IR (the module's docstring says why)."""
    from triton import knobs
    from triton._C.libtriton import llvm

    knobs.runtime.add_stages_inspection_hook = without_the_back_end
    # make_llir calls it by this name, in every version the drills support
    llvm.optimize_module = lambda module, *args, **kwargs: None


def without_the_back_end(*args):
    """triton's hook on a compile's stages (knobs.runtime.add_stages_inspection_hook): called
    with the backend, the stages, the options, the language and the capability, it ends the
    compile after LLVM IR; called with nothing (triton 3.7 and later), it says what it adds to
    the cache key."""
    if not args:
        return "drills-unoptimized-llvm-ir", ""
    stages = args[1]
    make_ptx = stages["ptx"]

    def named_kernel(llir: str, metadata: dict) -> str:
        # all a compile still needs of the PTX stage is the kernel's name (CompiledKernel reads
        # it), which the LLVM IR gives too: its ptx_kernel function
        kernel = re.search(r"^define ptx_kernel [^@]*@([\w.$]+)\(", llir, re.MULTILINE)
        if kernel is None:  # an LLVM IR written another way: its PTX after all
            return make_ptx(llir, metadata)
        metadata["name"] = kernel.group(1)
        return ""

    stages["ptx"] = named_kernel
    stages["cubin"] = lambda ptx, metadata: b""


def main() -> int:
    import triton.compiler  # noqa: F401 - imported before the first request comes, not after

    stop_at_llvm_ir()
    for line in sys.stdin:
        request = json.loads(line)
        try:
            module = KernelModule(request["module"], request["shown_as"], request["left_out"])
        except Exception as e:  # noqa: BLE001 - e.g. a constant the kernels need was left out
            print(json.dumps([f"the kernels could not be read: {type(e).__name__}: {e}"]))
            continue
        launches = [r for r in request["launches"] if isinstance(r, dict)]
        errors = [e for e in (module.compile(launch) for launch in launches) if e]
        print(json.dumps(errors), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
