"""Compile a learner's kernels for an sm_90 (Hopper) GPU on a machine without one.

The CPU interpreter runs kernel code as Python and accepts things the GPU compiler rejects: a
helper function without @triton.jit, an fp16 accumulator carried through `acc += tl.dot(...)`,
`tl.dot` blocks smaller than 16 along K. `triton.compile` with an explicit GPUTarget needs no
GPU and no driver, so the judge compiles every kernel launch of every case, with the same
argument types, constexprs and launch options, before the interpreter's run of that case
counts (drills.judge.testing.must_compile): the run counts only for a Triton program.

The judge compiles from its own reading of the learner's file: the @triton.jit functions and
the constants they use (drills.judge.source.kernel_module), never the file's other code. That takes a
process with the interpreter off (with it on, triton.language's own helpers are interpreted
functions the compiler cannot use): `python -m drills.judge.gpu_compile`, one per judge, reading one
request per line on stdin and answering one line of errors, each kernel compiled once for
what the compiler is given. The launches to compile come from the runner; they only choose
what to compile. Triton's code generator runs Python at compile time, so the process is
confined as the executor is (confine_this_process).

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

import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import stat
import subprocess
import sys
import tempfile
import weakref
from pathlib import Path

from drills import catalog
from drills.errors import compile_error_text, explain
from drills.judge import forks

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
    if isinstance(value, dict) and isinstance(value.get("tuple"), list):
        return tuple(_type_of(item) for item in value["tuple"])
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -(2**31) <= value < 2**31 else "i64"
    if isinstance(value, float):
        return "fp32"
    raise TypeError(f"cannot describe argument {value!r}")


def constexpr_value(value, kernels: dict):
    """A recorded constexpr value as the compiler wants it: a dtype, recorded by its triton
    name ("fp32") or its torch name ("float32"), becomes triton's, and a @triton.jit function,
    recorded by name, the module's function of that name (None where it has none)."""
    import triton.language as tl

    if isinstance(value, dict) and "jit" in value:
        return kernels.get(str(value["jit"]))
    if isinstance(value, dict) and isinstance(value.get("tuple"), list):
        return tuple(constexpr_value(item, kernels) for item in value["tuple"])
    if isinstance(value, dict) and "dtype" in value:
        name = str(value["dtype"])
        torch_names = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64"}
        try:
            return tl.dtype(torch_names.get(name, name))
        except (ValueError, TypeError, AssertionError):
            return None
    return value


class LoadedKernels:
    """The learner's @triton.jit functions (the vetted text of kernel_module), made into a
    module: compiled here, run by drills.judge.executor."""

    FILENAME_PREFIX = "<kernels of "  # what the learner's kernels' code objects name as file

    def __init__(self, text: str, shown_as: str, left_out: list[str]):
        import linecache

        self.text, self.shown_as, self.left_out = text, shown_as, left_out
        # triton reads a kernel's source through inspect: let it find this text, under a name
        # that is no file (the learner's file may have changed since the judge read it)
        self.filename = f"{self.FILENAME_PREFIX}{shown_as}>"
        lines = text.splitlines(keepends=True)
        linecache.cache[self.filename] = (len(text), None, lines, self.filename)
        namespace: dict = {"__name__": "learner_kernels"}
        exec(compile(text, self.filename, "exec"), namespace)  # noqa: S102 - drills.judge.source vetted it
        # by the name a launch records: the function's own, wherever the module keeps it (a
        # class body, an alias)
        held = [v for c in namespace.values() if isinstance(c, type) for v in vars(c).values()]
        self.kernels = {fn.__name__: fn for fn in [*held, *namespace.values()] if _is_jit(fn)}

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
        signature, constexprs, options = self.signature(kernel, launch["args"])
        source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs)
        try:
            triton.compile(source, target=GPUTarget(*SM90), options=options)
        except Exception as e:  # noqa: BLE001 - any compiler failure is the learner's to read
            message = compile_error_text(e)
            return f"{type(e).__name__}: {message}\n{explain(message)}".rstrip()
        return None

    def signature(self, kernel, args: dict) -> tuple[dict, dict, dict]:
        """What the compiler is given for a launch: each argument's type, the constexprs'
        values (the kernel's defaults for those not passed) and the launch options."""
        signature, constexprs = {}, {}
        for param in kernel.params:
            value = args.get(param.name, param.default)
            if param.is_constexpr or value is None:
                signature[param.name] = "constexpr"
                constexprs[param.name] = constexpr_value(value, self.kernels)
            else:
                signature[param.name] = _type_of(value)
        options = {k: args[k] for k in _OPTIONS if isinstance(args.get(k), int)}
        return signature, constexprs, options

    def compiled_as(self, launch: dict) -> str:
        """A key for what the compiler is given for `launch`: launches that differ only in
        their tensors and the values of plain arguments compile alike."""
        kernel = self.kernels.get(launch["kernel"])
        if kernel is None:
            return f"missing {launch['kernel']}"
        signature, constexprs, options = self.signature(kernel, launch["args"])
        return repr((launch["kernel"], signature, sorted(constexprs.items()), options))


def _is_jit(value) -> bool:
    """A @triton.jit function: compiled, or (under TRITON_INTERPRET=1) interpreted."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction

    return isinstance(value, (JITFunction, InterpretedFunction))


class CompilerDidNotStart(Exception):
    """The compile process failed before it read anything of the learner's: the judge's fault."""


class Compiler:
    """A `python -m drills.judge.gpu_compile` process of the judge's, kept for its requests.
    Triton's code generator runs Python at compile time (constexpr arithmetic, the functions a
    kernel calls), so the process is confined as the executor is (its first act, before it
    imports triton), writes only a triton cache of its own for the file's kernels, and under
    --sandbox runs as the run's user."""

    def __init__(self, code):
        user = code.runner.sandbox.user
        if user:  # a cache the run's user can reach: the judge's own is its owner's alone
            cache = tempfile.mkdtemp(prefix="drills-compile-")
            os.chown(cache, *user)
            weakref.finalize(self, shutil.rmtree, cache, True)
        else:
            cache = kernels_cache("sm90-llvm-ir", code.source.kernel_module()[0])
        confinement = forks.confinement(writable=[cache])
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed with the process
        how = json.dumps([confinement, user, recorded_triton_key()])
        self.process = subprocess.Popen(
            [sys.executable, "-B", "-m", "drills.judge.gpu_compile", how],
            cwd=catalog.ROOT,
            env=environment(cache),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
        )
        self.started = False

    def failures(self, code, launches: list, extra_source: str = "") -> list[str]:
        self.wait_until_started()
        text, left_out = code.source.kernel_module()
        distinct = []
        for launch in launches:
            described = {"kernel": launch.kernel, "args": launch.args}
            if described not in distinct:
                distinct.append(described)
        request = {
            "module": text + extra_source,
            "shown_as": code.shown_as,
            "left_out": [str(f) for f in left_out],
            "launches": distinct,
        }
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.answer()
        if line is None:
            took = f"compiling took over {COMPILE_LIMIT} s: "
            return [took + "a loop the compiler unrolls (tl.static_range), or a huge constant?"]
        if not line:
            return [f"the compiler ended while compiling your kernels: {self._end()}"]
        return json.loads(line)

    def wait_until_started(self) -> None:
        """Its first line says it has confined itself and compiled a kernel of the judge's: until
        then nothing of the learner's has reached it, so a failure is the judge's own."""
        if self.started:
            return
        line = self.answer()
        if line is None or line.strip() != '"ready"':
            ended = self._end()
            self.errors.seek(0)
            said = self.errors.read().decode(errors="replace")[-2000:]
            raise CompilerDidNotStart(
                f"the judge's compile process did not start ({ended}): {said}"
            )
        self.started = True

    def answer(self) -> str | None:
        """Its next line ("" when it ended), or None after COMPILE_LIMIT seconds (it is killed)."""
        ready, _, _ = select.select([self.process.stdout], [], [], COMPILE_LIMIT)
        if not ready:
            self.process.kill()
            return None
        return self.process.stdout.readline()

    def _end(self) -> str:
        from drills.processes import death

        self.process.kill()
        return death(self.process.wait())


def environment(cache: str) -> dict[str, str]:
    """A compile process's environment: what a runner's holds (nothing of the judge's, the seed
    least of all), without the interpreter, and `cache` for triton's."""
    env = {k: v for k, v in forks.kept(os.environ).items() if k != "TRITON_INTERPRET"}
    return env | {"TRITON_CACHE_DIR": cache}


_compilers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # LearnerCode -> Compiler


def begin(code) -> None:
    """Start the compile process for `code` now, so that it confines itself and imports
    triton while the judge collects the cases."""
    if code not in _compilers or _compilers[code].process.poll() is not None:
        _compilers[code] = Compiler(code)


def failures(code, launches: list, extra_source: str = "") -> list[str]:
    """Compile each distinct launch (of the learner's kernels, and of `extra_source`'s, the
    judge's own appended to them); the messages of those that fail."""
    begin(code)
    return _compilers[code].failures(code, launches, extra_source)


# where the interpreter would run it or not (a name triton does not have stops both)
NOT_COMPILED = (
    "does not compile for a GPU (sm_90), and on the CPU a kernel counts only where a GPU would "
    "run it:"
)


def judge_cache() -> str:
    """Where the judge's processes keep triton's compiled kernels; made now if it is not there
    yet, so that a runner cannot be first to make it."""
    default = os.path.join(os.path.expanduser("~"), ".triton", "cache")
    cache = os.environ.get("TRITON_CACHE_DIR") or default
    os.makedirs(cache, mode=0o700, exist_ok=True)
    return cache


def driver_helpers() -> str:
    """Where the fork server's image builds triton's C helper module for CUDA (cuda_utils),
    which each process's triton driver otherwise compiles with gcc into that process's own
    cache before it can launch anything: 0.3 s in each runner, whose cache is new every time."""
    return os.path.join(judge_cache(), "drills-driver")


def build_driver_helpers() -> None:
    """Build (or find) triton's CUDA helper module in driver_helpers(), in a fork server's
    image (drills.judge.forks): loading it does not touch the GPU. Where triton has no such
    module, or cannot find CUDA's library, nothing is built, and each process builds its own,
    as triton does."""
    saved = os.environ.get("TRITON_CACHE_DIR")
    try:
        os.environ["TRITON_CACHE_DIR"] = driver_helpers()
        from triton.backends.nvidia.driver import CudaUtils

        CudaUtils()
    except Exception:  # noqa: BLE001 - a speed-up only: without it, each process builds its own
        pass
    finally:
        if saved is None:
            os.environ.pop("TRITON_CACHE_DIR", None)
        else:
            os.environ["TRITON_CACHE_DIR"] = saved


def _triton_files() -> str:
    """A digest of where, how long and how old each of triton's installed files is (5 ms): it
    changes whenever a file of triton's does, as the hash of their contents would."""
    import triton

    root = os.path.dirname(triton.__file__)
    entries = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in names:
            found = os.stat(os.path.join(folder, name))
            path = os.path.relpath(os.path.join(folder, name), root)
            entries.append(f"{path} {found.st_size} {found.st_mtime_ns}")
    return hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()


def _triton_key_record() -> Path:
    return Path(judge_cache()) / "drills-triton-key" / _triton_files()


def recorded_triton_key(record: Path | None = None) -> str | None:
    """Triton's hash of its own files (triton_key) as a fork server recorded it for the files
    installed now (in `record`, where it is known already); None where none did."""
    try:
        return (record or _triton_key_record()).read_text() or None
    except OSError:
        return None


def use_triton_key(key: str | None) -> None:
    """Have triton_key() answer `key` in this process rather than hash triton's files again:
    0.35-0.45 s on an H100 host, 0.9 s on a 2-core one, in every process that compiles. It
    primes triton's own cache of the answer (functools.lru_cache), which every module that took
    the function by name shares, by calling it once with a body that returns `key`."""
    from triton.runtime.cache import triton_key

    hashing = getattr(triton_key, "__wrapped__", None)
    if key is None or hashing is None or not hasattr(triton_key, "cache_info"):
        return
    code, defaults = hashing.__code__, hashing.__defaults__

    def recorded(key=key):
        return key

    hashing.__code__, hashing.__defaults__ = recorded.__code__, (key,)
    try:
        triton_key()
    finally:
        hashing.__code__, hashing.__defaults__ = code, defaults


def record_triton_key() -> None:
    """In a fork server, which runs as the grader's user and nothing of a learner's: use the
    recorded triton_key, or compute it and record it for the next grade's processes."""
    from triton.runtime.cache import triton_key

    record = _triton_key_record()
    recorded = recorded_triton_key(record)
    use_triton_key(recorded)
    key = triton_key()
    if recorded == key:
        return
    with contextlib.suppress(OSError):  # a speed-up only: without it, each process hashes
        own_folder(record.parent)
        fd, new = tempfile.mkstemp(dir=record.parent, prefix=".key.")
        with os.fdopen(fd, "w") as written:
            written.write(key)
        os.replace(new, record)


def with_driver_helpers(cache: str) -> None:
    """Give a process's own triton cache a copy of the judge's build of the CUDA helper module,
    under the key triton finds it by, so that its driver loads it rather than compiling it. A
    copy, never a link, so nothing a process writes in its cache reaches the judge's build.
    Each file is a new one put in place, never one rewritten: the executors of one file's
    kernels share a cache, and rewriting a library another of them had loaded crashed it
    (SIGSEGV, on an H100). That cache is theirs to write, so a key's folder in it that is not
    a folder of this user's (a link, a file) is replaced, never written through. Only a
    speed-up: where anything fails, the process builds its own."""
    try:
        for built in Path(driver_helpers()).glob("*/cuda_utils*"):  # not triton's tmp.* folders
            into = own_folder(Path(cache) / built.parent.name)
            fd, new = tempfile.mkstemp(dir=into, prefix=f".{built.name}.")
            with os.fdopen(fd, "wb") as copy, open(built, "rb") as original:
                shutil.copyfileobj(original, copy)
            os.replace(new, into / built.name)
    except OSError:  # one being built meanwhile (another server), a full disk ...
        pass


def own_folder(folder: Path) -> Path:
    """`folder`, made now if need be (its parents too), as a folder of this user's: whatever
    else stands at its path (another user's folder, a link planted by a process that can write
    its parent) is removed first. Judges started at once may each make it: one does."""

    def ours(found: os.stat_result) -> bool:
        return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid()

    try:
        found = os.lstat(folder)
    except FileNotFoundError:
        found = None
    if found is not None and not ours(found):
        if stat.S_ISDIR(found.st_mode):
            shutil.rmtree(folder)
        else:
            os.unlink(folder)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not ours(os.lstat(folder)):  # planted again between the removal and the making
        raise PermissionError(f"{folder} is not a folder of this user's")
    return folder


def kernels_cache(purpose: str, module_text: str) -> str:
    """A triton cache folder for one text of kernels, made now, in the judge's cache: the only
    folder a confined process that compiles them may write, so what it leaves there can reach
    no other file's kernels, nor another purpose's."""
    digest = hashlib.sha256(module_text.encode()).hexdigest()[:32]
    # one not this user's to write (made inside a namespace) is made again
    return str(own_folder(Path(judge_cache()) / f"drills-{purpose}" / digest))


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


def confine_this_process(
    confinement: dict | None, user: list[int] | None, triton_key: str | None = None
) -> None:
    """As the fork server confines a runner (drills.judge.forks): namespaces and a read-only
    machine but for the cache, the run's user under --sandbox, no new processes. Inside its
    namespaces, before it gives up being the grader's user and while nothing of the learner's
    has reached it, it compiles a kernel of the judge's: that loads every module a compile
    needs while this Python's own files can still be read (the run's user may not read them),
    and asks ptxas its version while a process can still start. With `triton_key` (the
    judge's recorded_triton_key()), that compile does not hash triton's files first."""
    from drills import confine

    user = tuple(user) if user else None
    confined = confine.Confinement(**confinement) if confinement else None
    confine.enter(confined, become_later=True, user=user)
    confine.apply_limits({"RLIMIT_CORE": 0, "RLIMIT_FSIZE": 1 << 30})
    import triton.compiler  # noqa: F401

    use_triton_key(triton_key)
    stop_at_llvm_ir()
    first = LoadedKernels(FIRST_COMPILE, "the judge's first kernel", [])
    first.compile({"kernel": "first", "args": {"x_ptr": {"tensor": "int32"}}})
    confine.become(user, confined=confined is not None)
    confine.forbid_new_processes()


# a kernel of the judge's, compiled before any of the learner's: what triton asks of ptxas (its
# version) it asks at a first compile, and keeps
FIRST_COMPILE = """import triton; import triton.language as tl
@triton.jit
def first(x_ptr):
    tl.store(x_ptr, 1)
"""


def main() -> int:
    confine_this_process(*json.loads(sys.argv[1]))
    print(json.dumps("ready"), flush=True)
    modules: dict[str, LoadedKernels | str] = {}  # by text: the module, or why it cannot be read
    verdicts: dict[str, str | None] = {}  # by what the compiler is given: its message, or None
    for line in sys.stdin:
        request = json.loads(line)
        text = request["module"]
        if text not in modules:
            try:
                modules[text] = LoadedKernels(text, request["shown_as"], request["left_out"])
            except Exception as e:  # noqa: BLE001 - e.g. a constant the kernels need was left out
                modules[text] = f"the kernels could not be read: {type(e).__name__}: {e}"
        module = modules[text]
        if isinstance(module, str):
            print(json.dumps([module]), flush=True)
            continue
        errors = []
        for launch in request["launches"]:
            if not isinstance(launch, dict):
                continue
            try:
                compiled_as = module.compiled_as(launch)
            except (TypeError, ValueError) as e:
                errors.append(f"{type(e).__name__}: {e}")
                continue
            if compiled_as not in verdicts:
                verdicts[compiled_as] = module.compile(launch)
            if verdicts[compiled_as]:
                errors.append(verdicts[compiled_as])
        print(json.dumps(errors), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
