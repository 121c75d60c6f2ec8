"""What a dotted name in a learner's file reaches, read without running anything.

The allowlists of host code and of kernels, and the resolution of chains of names
(`tl.math.exp`, `torch.cuda.synchronize`) against the real, trusted modules: drills.judge.source,
its reading of host code (host_reading) and its kernel module (kernel_module) all ask here.
"""

import ast
import contextlib
import importlib
import inspect
import sys
import types

import torch
import triton

# ---------------------------------------------------------------------------------------------
# What host code may use
# ---------------------------------------------------------------------------------------------


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


ALLOWED_IMPORTS = words(
    "torch triton math functools itertools typing typing_extensions dataclasses collections "
    "enum abc __future__ operator numbers logging warnings os"
)
# the trusted modules that chains of names are resolved against
ROOTS: dict[str, types.ModuleType] = {}
for _name in ALLOWED_IMPORTS:
    with contextlib.suppress(ImportError):
        ROOTS[_name] = importlib.import_module(_name)

# Members of allowed modules that reach further than their module does: they evaluate strings
# (get_type_hints) or get attributes by a string (attrgetter, methodcaller).
DENIED_MEMBERS = {
    "typing": words("get_type_hints evaluate_forward_ref"),
    "typing_extensions": words("get_type_hints get_annotations evaluate_forward_ref"),
    "operator": words("attrgetter methodcaller"),
}
# Allowed modules of which only a few members are allowed: logging's handlers hold open files
# (and its config names arbitrary callables), warnings.formatwarning reads any file's lines.
ALLOWED_MEMBERS = {
    "logging": words(
        "getLogger Logger LoggerAdapter NullHandler getLevelName debug info warning warn error "
        "exception critical log DEBUG INFO WARNING WARN ERROR CRITICAL FATAL NOTSET"
    ),
    "warnings": words("warn catch_warnings simplefilter filterwarnings"),
}

# Builtins that run code, read files or frames, or reach attributes by a computed name.
ESCAPE_BUILTINS = words(
    "exec eval compile __import__ open globals locals vars breakpoint input setattr delattr "
    "memoryview getattr"
)
READABLE_DUNDERS = frozenset({"__name__", "__file__", "__doc__"})
WRITABLE_DUNDERS = frozenset({"__all__", "__version__", "__slots__", "__match_args__"})
# Attributes starting with "_" reach interpreter internals (__globals__, __subclasses__,
# torch._C). Triton's tutorial 02 calls kernel._init_handles() before reading kernel.n_regs, so
# that one private name is allowed too.
UNDERSCORE_OK = frozenset({"__name__", "__doc__", "__version__", "_init_handles"})
# Attributes without an underscore that still reach internals: frames and code, a logger's
# handlers (open files), storages made from files.
INTERNAL_ATTRIBUTES = words(
    "f_back f_globals f_locals f_builtins f_code tb_frame tb_next gi_frame cr_frame "
    "ag_frame co_code gi_code cr_code ag_code handlers manager from_file from_buffer"
)

# torch: what a host function needs to allocate, describe and place tensors; nothing that
# computes. torch.autograd.Function is there for Liger-style wrappers (its forward is the
# learner's own code, checked like the rest).
# tensor, as_tensor and arange make tensors from Python values, which the runner sends by value
TORCH_NAMES = words(
    "Tensor Size dtype device Generator empty empty_like empty_strided zeros zeros_like "
    "full full_like ones ones_like tensor as_tensor arange is_tensor is_floating_point finfo iinfo "
    "get_default_dtype promote_types result_type no_grad inference_mode get_device_module "
    "memory_format contiguous_format preserve_format channels_last channels_last_3d layout "
    "strided"
)
TORCH_DTYPES = frozenset(n for n, v in vars(torch).items() if isinstance(v, torch.dtype))
TORCH_CUDA = words(
    "is_available current_device device device_count get_device_properties "
    "get_device_capability get_device_name current_stream synchronize Stream set_device "
    "mem_get_info is_bf16_supported"
)

# Tensor methods that compute, whatever they are called on. Metadata, views, allocation and
# conversions are not flagged (.to, .contiguous, .clone and .copy_ are left to the runtime
# checks), nor are method names that dicts, lists, strings, sets and numbers also have
# (kwargs.values(), shape.index(), s.split()); .add is flagged anyway, except on a set.
TENSOR_SAFE = words(
    "size stride dim ndim ndimension numel nelement element_size is_contiguous contiguous t "
    "view view_as reshape reshape_as transpose permute unsqueeze squeeze expand expand_as "
    "flatten unflatten as_strided narrow select split chunk unbind data_ptr get_device "
    "storage_offset untyped_storage new_empty new_empty_strided new_zeros new_full new_ones "
    "zero_ fill_ is_floating_point is_complex detach to type cuda clone copy_ pin_memory "
    "float half bfloat16 double int long short bool"
)
PYTHON_METHODS = frozenset(
    n for t in (dict, list, str, set, tuple, int, float, bytes) for n in dir(t) if n[0] != "_"
)
TENSOR_ALWAYS = words(
    "numpy item tolist cpu apply_ map_ storage set_ resize_ share_memory_ backward "
    "register_hook add"
)
TENSOR_COMPUTE = (
    frozenset(n for n in dir(torch.Tensor) if n[0] != "_" and callable(getattr(torch.Tensor, n)))
    - TENSOR_SAFE
    - PYTHON_METHODS
) | TENSOR_ALWAYS

# triton: its entry points that compile or run arbitrary host code or files (the backends and
# the driver's launcher_cls compile C made from their arguments; tl.str_to_ty evals part of its
# argument), change triton's settings (knobs: launch hooks, cache directories) or write its
# caches. A host function and a kernel need none of them. triton.tools.tensor_descriptor is the host half of tutorial 09's TMA kernels.
TRITON_DENIED = words(
    "compile compiler tools testing interpreter knobs build cache compile_module_from_src "
    "compile_so_from_src str_to_ty backends launcher_cls"
)
JIT_DECORATORS = frozenset({"triton.jit", "triton.runtime.jit.jit"})
# Modules of @triton.jit helpers that generated kernels call: inductor's code calls
# triton_helpers.max2 and tl_math.exp. They are installed with torch, so the judge may import
# them; each is imported only when a learner's file names it (inductor's takes a second).
KERNEL_LIBRARIES = ("torch._inductor.runtime.triton_helpers",)
LIBDEVICE_MODULES = ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice")
# the modules of triton.language that hold only functions, which a module-level name may stand
# for (Inductor's helpers: math = tl.math); a name for any other module (tl.core, whose
# attributes reach builtins) is a module passed around
FUNCTION_MODULES = frozenset({"triton.language.math", *LIBDEVICE_MODULES})
# the names triton offers its autotune decorator under
AUTOTUNE_DECORATORS = frozenset(
    {"triton.autotune", "triton.runtime.autotune", "triton.runtime.autotuner.autotune"}
)
# where the objects an allowed module offers may come from, when not from that module itself
FAMILIES = {"typing_extensions": ("typing_extensions", "typing")}
PLAIN = (bool, int, float, complex, str, bytes, type(None))

# ---------------------------------------------------------------------------------------------
# Names and chains of attributes
# ---------------------------------------------------------------------------------------------


def name_chain(node: ast.AST) -> list[str] | None:
    """["tl", "math", "exp"] for tl.math.exp; None unless it is attributes of a plain name."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    return [node.id, *reversed(attributes)] if isinstance(node, ast.Name) else None


def walk(path: list[str], imports: bool = False, deep: bool = False) -> list[object]:
    """The objects that path[:1], path[:2], ... name, for as long as they are modules (with
    deep, past any object too, read without running its code: a class's attribute can be a
    module, tl.semantic.TritonSemantic.lang is triton.language.core). getattr is only ever
    called on a trusted module, so nothing the learner chose runs; a name this version lacks
    ends the walk (host code's unknown names are accepted; a kernel's are refused, see
    unknown). With imports, a prefix that names
    a loaded module is that module, as an import finds it: there triton.runtime.driver is a
    module, where getattr finds an object."""
    if path[0] not in ROOTS:
        return []
    found = [ROOTS[path[0]]]
    for i, name in enumerate(path[1:], start=2):
        if not isinstance(found[-1], types.ModuleType):
            if not deep:
                break
            try:
                found.append(inspect.getattr_static(found[-1], name))
            except AttributeError:
                break
            continue
        module = sys.modules.get(".".join(path[:i])) if imports else None
        if imports and deep and module is None and path[0] == "triton":
            # triton's own submodule, which the executor may have loaded by the time a kernel
            # runs (triton.language.semantic): imported here too, to be read as it will be
            with contextlib.suppress(Exception):
                module = importlib.import_module(".".join(path[:i]))
        try:
            found.append(module or getattr(found[-1], name))
        except Exception:  # noqa: BLE001 - a lazy attribute that fails to load is unknown too
            break
    return found


def is_module(path: list[str]) -> bool:
    return any(
        len(found) == len(path) and isinstance(found[-1], types.ModuleType)
        for found in (walk(path), walk(path, imports=True))
    )


def within(module: str, family: tuple[str, ...]) -> bool:
    """Whether module is one of family or under one (_functools counts as functools)."""
    module = module.lstrip("_")
    return any(module == f.lstrip("_") or module.startswith(f.lstrip("_") + ".") for f in family)


def home(obj: object) -> str:
    """The module that defines obj (a function or class), or obj's class; read without running
    any __getattr__ of obj's. For triton's wrappers of a function (JITFunction, and the
    interpreter's InterpretedFunction), the function's."""
    wrapped = inspect.getattr_static(obj, "fn", None)
    obj = wrapped if isinstance(wrapped, types.FunctionType) else obj
    # a class's property or static method, as a class attribute read without running it
    if isinstance(obj, property) and obj.fget is not None:
        obj = obj.fget
    elif isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return obj.__module__ or ""
    module = inspect.getattr_static(obj, "__module__", None)
    return module if isinstance(module, str) else type(obj).__module__


def strays(
    path: list[str],
    modules: tuple[str, ...],
    objects: tuple[str, ...] = (),
    start: int = 0,
    deep: bool = False,
) -> str | None:
    """Where a chain leaves its family, read as attributes or as an import: through a module
    of another (tl.core.builtins), or at an object that another module defined and this one
    only imported (tl.extra.modules, which is sys.modules). Plain values are anyone's. With
    deep, past objects too (see walk)."""
    for found in (walk(path, deep=deep), walk(path, imports=True, deep=deep)):
        for i, obj in enumerate(found[start:], start):
            if isinstance(obj, types.ModuleType):
                if not within(obj.__name__, modules):
                    return f"reaches {obj.__name__} through {'.'.join(path[:i])}"
            elif not isinstance(obj, PLAIN) and not within(home(obj), objects or modules):
                return f"reaches {'.'.join(path[: i + 1])}, which comes from {home(obj)}"
    return None


def unknown(path: list[str]) -> str | None:
    """A chain that this triton cannot follow to its end: a kernel may not read it (what a
    name reaches once more is loaded is not known here), and no compiler would compile it."""
    if len(walk(path, imports=True, deep=True)) < len(path):
        return f"uses {'.'.join(path)}, which triton {triton.__version__} does not have"
    return None


def host_chain_problem(path: list[str], called: bool = False) -> str | None:
    """What is wrong with host code using the dotted name `path` (rooted at an import)."""
    hidden = next((p for p in path[1:] if p[0] == "_" and p not in UNDERSCORE_OK), None)
    if hidden:
        return f"reads {hidden}"
    root = path[0]
    if root == "torch":
        return torch_problem(path, called)
    if root == "triton":
        return triton_problem(path)
    if root == "os":
        return os_problem(path)
    if root == "drills":  # the stubs' one import
        return None if path == ["drills", "NotStarted"] else f"imports {'.'.join(path)}"
    if len(path) > 1 and path[1] in DENIED_MEMBERS.get(root, ()):
        return f"uses {root}.{path[1]}"
    if len(path) > 1 and root in ALLOWED_MEMBERS and path[1] not in ALLOWED_MEMBERS[root]:
        return f"uses {root}.{path[1]}"
    return strays(path, FAMILIES.get(root, (root,)))


def torch_problem(path: list[str], called: bool) -> str | None:
    if len(path) == 1:
        return None
    name, rest = path[1], path[2:]
    if name in ("backends", "version"):
        return strays(path, (f"torch.{name}",), objects=("torch",), start=1)
    if name == "cuda":
        allowed = not rest or rest[0] in TORCH_CUDA
    elif name == "autograd":
        allowed = rest[:1] == ["Function"]
    elif name == "library":  # a custom op around the launch, as PyTorch's recipe writes it
        allowed = rest[:1] in (["triton_op"], ["wrap_triton"])
    elif name == "Tensor":
        allowed = not rest or rest[0] not in TENSOR_COMPUTE
    elif name == "Generator":  # for annotations and isinstance
        allowed = bool(rest) or not called
    else:
        allowed = name in TORCH_NAMES or name in TORCH_DTYPES
    return None if allowed else f"uses {'.'.join(path)}"


def triton_problem(path: list[str]) -> str | None:
    for i, name in enumerate(path):
        if name in TRITON_DENIED and path[i : i + 2] != ["tools", "tensor_descriptor"]:
            return f"uses {'.'.join(path[: i + 1])}"
    return strays(path, ("triton",))


def os_problem(path: list[str]) -> str | None:
    if len(path) == 1 or path[1] in ("environ", "getenv"):
        return None
    if path[1] == "path":  # pure path helpers, as long as the chain stays in os.path
        return strays(path, (ROOTS["os"].path.__name__, "genericpath"), start=1)
    return f"uses {'.'.join(path[:2])}"


def kernel_library(path: list[str]) -> types.ModuleType | None:
    """The library of KERNEL_LIBRARIES that `path` names or reaches into, imported."""
    dotted = ".".join(path)
    for library in KERNEL_LIBRARIES:
        if dotted == library or dotted.startswith(library + "."):
            try:
                return importlib.import_module(library)
            except ImportError:
                return None
    return None


def library_chain_problem(path: list[str], library: types.ModuleType) -> str | None:
    """A chain into a kernel library: one of its own @triton.jit helpers, or what it re-exports
    from triton.language (its `math` and `libdevice`), checked as that."""
    rest = path[len(library.__name__.split(".")) :]
    if not rest:
        return None  # the library itself, imported under a name
    member = inspect.getattr_static(library, rest[0], None)
    if isinstance(member, types.ModuleType):
        return kernel_chain_problem([*member.__name__.split("."), *rest[1:]])
    defined_here = home(member) == library.__name__ and hasattr(member, "fn")
    if len(rest) == 1 and defined_here:
        return None
    return f"uses {'.'.join(path)}, which is not one of {library.__name__}'s kernels"


def kernel_chain_problem(path: list[str]) -> str | None:
    """What is wrong with a kernel (or a constant it reads) using the dotted name `path`: it
    must stay inside triton.language, math or a kernel library (triton.cdiv and
    next_power_of_2 are plain arithmetic)."""
    library = kernel_library(path)
    if library is not None:
        return library_chain_problem(path, library)
    hidden = next((p for p in path[1:] if p[0] == "_"), None)
    if hidden:
        return f"reads {hidden}"
    if path[0] == "math":
        return strays(path, ("math",), deep=True)
    if path[:2] == ["triton", "language"]:
        # objects from triton.language, the compiler's enums (tl.PropagateNan), or the stand-ins
        # the interpreter patches into triton.language while a kernel runs in this process;
        # read past every object, since a class's attribute may be any module
        family = ("triton.language", "triton._C", "triton.runtime.interpreter")
        return (
            triton_problem(path)
            or strays(path, family[:1], objects=family, start=1, deep=True)
            or unknown(path)
        )
    if path in (["triton", "cdiv"], ["triton", "next_power_of_2"]):
        return None
    return f"uses {'.'.join(path)}, which is not part of triton.language"


def import_bindings(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
    """(name bound, dotted path of what it names) for each name an import binds; a star
    import of a trusted module binds the names that module exports."""
    if isinstance(node, ast.Import):
        return [(a.asname, a.name) if a.asname else (a.name.split(".")[0],) * 2 for a in node.names]
    if node.level:
        return []
    bindings = []
    for a in node.names:
        if a.name == "*":
            parts = node.module.split(".")
            found = walk(parts, imports=True)
            if len(found) == len(parts):
                module = found[-1]
                exported = getattr(module, "__all__", None) or [
                    n for n in dir(module) if n[0] != "_"
                ]
                bindings += [(n, f"{node.module}.{n}") for n in exported]
        else:
            bindings.append((a.asname or a.name, f"{node.module}.{a.name}"))
    return bindings


def import_problems(node: ast.Import | ast.ImportFrom) -> list[str]:
    """Why host code may not make this import."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            return [f"imports {'.' * node.level}{node.module or ''}"]
        if node.module == "drills":
            names = [(a.name, a.asname) for a in node.names]
            return [] if names == [("NotStarted", None)] else ["imports from drills"]
        modules = [node.module]
    else:
        modules = [a.name for a in node.names]
    problems = [f"imports {m}" for m in modules if m.split(".")[0] not in ALLOWED_IMPORTS]
    if problems:
        return problems
    if isinstance(node, ast.Import):  # `import torch.nn` binds torch, but loads torch.nn
        paths = [m.split(".") for m in modules]
    else:  # the names a star import binds are checked where they are used
        paths = [[*node.module.split("."), a.name] for a in node.names if a.name != "*"]
    return [p for p in map(host_chain_problem, paths) if p]
