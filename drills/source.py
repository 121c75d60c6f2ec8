"""What the judge learns from a learner's file by reading it, never running it.

The learner's file runs in a runner process that its own code can tamper with, so the judge
(trusted) never imports it. From the source text alone it learns:

- kernel_module(): the @triton.jit functions, with the triton/math imports and the constants
  they need, as a module the judge runs on its own buffers (drills/executor.py) and hands to
  triton's compiler. Both run whatever Python callables a kernel body reaches (the interpreter
  runs kernel bodies as Python, the code generator calls them at compile time), so everything
  in that module is vetted: nothing in it can run Python the learner chose.
- raises_not_started(), defines_function(), autotuned(), jit_function_names().
- escapes(): host code that computes outside a kernel (torch arithmetic, numpy) or reaches
  the grader, files or processes. Host code is everything outside @triton.jit bodies and
  outside an `if __name__ == "__main__":` block. Imports, names and attribute chains are
  checked against allowlists, resolved (where they name modules) against the real, trusted
  modules. This is feedback, said beside a wrong result: it never decides a point, since the
  judge grades what its own run of the kernels wrote.
"""

import ast
import builtins
import contextlib
import importlib
import inspect
import re
import sys
import tokenize
import types
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import torch

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
TORCH_NAMES = words(
    "Tensor Size dtype device Generator empty empty_like empty_strided zeros zeros_like "
    "full full_like ones ones_like is_tensor is_floating_point finfo iinfo "
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
AUTOTUNE_DECORATORS = frozenset({"triton.autotune", "triton.runtime.autotuner.autotune"})
# where the objects an allowed module offers may come from, when not from that module itself
FAMILIES = {"typing_extensions": ("typing_extensions", "typing")}
PLAIN = (bool, int, float, complex, str, bytes, type(None))

# ---------------------------------------------------------------------------------------------
# What the kernel module (run and compiled by the judge) may contain
# ---------------------------------------------------------------------------------------------

KERNEL_HEADER = "import triton; import triton.language as tl"
KERNEL_BUILTINS = words(
    "range min max len int float bool print isinstance zip enumerate tuple list abs round"
)
CONSTANT_CALLS = frozenset({"triton.language.constexpr", "triton.language.core.constexpr"})
KEPT_JIT_OPTIONS = frozenset({"do_not_specialize", "do_not_specialize_on_alignment", "noinline"})
# a string annotation triton reads as a type ("tl.constexpr", "*fp32"), never as code
TYPE_STRING = re.compile(r"[\w.* ]*")


# The checks below recurse through the syntax tree; no kernel file comes near this depth.
MAX_DEPTH = 200


class SourceError(Exception):
    """The file cannot be read as Python; str() is the message for the learner."""


@dataclass(frozen=True)
class Finding:
    line: int
    what: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


def read(path: Path, shown_as: str) -> "LearnerSource":
    """Parse a learner's file; SourceError says why it cannot be read."""
    try:
        with tokenize.open(path) as f:  # honours a coding cookie; newlines become "\n"
            text = f.read()
        # a name that is no file: else a syntax error quotes its line from the file of that name
        tree = ast.parse(text, filename=f"<{shown_as}>")
    except FileNotFoundError:
        raise SourceError(f"{shown_as} does not exist") from None
    except SyntaxError as e:
        raise SourceError(
            f"{shown_as} has a syntax error on line {e.lineno}: {e.msg}\n"
            f"    {(e.text or '').rstrip()}"
        ) from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise SourceError(f"{shown_as} cannot be read as Python: {e}") from None
    if depth(tree) > MAX_DEPTH:
        raise SourceError(f"{shown_as} nests expressions too deeply to be checked")
    return LearnerSource(shown_as, text, tree)


def depth(tree: ast.AST) -> int:
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, level = todo.pop()
        deepest = max(deepest, level)
        todo += [(child, level + 1) for child in ast.iter_child_nodes(node)]
    return deepest


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


def walk(path: list[str], imports: bool = False) -> list[object]:
    """The objects that path[:1], path[:2], ... name, for as long as they are modules. getattr
    is only ever called on a trusted module, so nothing the learner chose runs; a name this
    version lacks ends the walk (unknown names are accepted, not flagged). With imports, a
    prefix that names a loaded module is that module, as an import finds it: there
    triton.runtime.driver is a module, where getattr finds an object."""
    if path[0] not in ROOTS:
        return []
    found = [ROOTS[path[0]]]
    for i, name in enumerate(path[1:], start=2):
        if not isinstance(found[-1], types.ModuleType):
            break
        module = sys.modules.get(".".join(path[:i])) if imports else None
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
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return obj.__module__ or ""
    module = inspect.getattr_static(obj, "__module__", None)
    return module if isinstance(module, str) else type(obj).__module__


def strays(
    path: list[str], modules: tuple[str, ...], objects: tuple[str, ...] = (), start: int = 0
) -> str | None:
    """Where a chain leaves its family, read as attributes or as an import: through a module
    of another (tl.core.builtins), or at an object that another module defined and this one
    only imported (tl.extra.modules, which is sys.modules). Plain values are anyone's."""
    for found in (walk(path), walk(path, imports=True)):
        for i, obj in enumerate(found[start:], start):
            if isinstance(obj, types.ModuleType):
                if not within(obj.__name__, modules):
                    return f"reaches {obj.__name__} through {'.'.join(path[:i])}"
            elif not isinstance(obj, PLAIN) and not within(home(obj), objects or modules):
                return f"reaches {'.'.join(path[: i + 1])}, which comes from {home(obj)}"
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


def kernel_chain_problem(path: list[str]) -> str | None:
    """What is wrong with a kernel (or a constant it reads) using the dotted name `path`: it
    must stay inside triton.language or math (triton.cdiv and next_power_of_2 are plain
    arithmetic)."""
    hidden = next((p for p in path[1:] if p[0] == "_"), None)
    if hidden:
        return f"reads {hidden}"
    if path[0] == "math":
        return strays(path, ("math",))
    if path[:2] == ["triton", "language"]:
        # objects from triton.language, the compiler's enums (tl.PropagateNan), or the stand-ins
        # the interpreter patches into triton.language while a kernel runs in this process
        family = ("triton.language", "triton._C", "triton.runtime.interpreter")
        return triton_problem(path) or strays(path, family[:1], objects=family, start=1)
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


def is_main_block(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`, which runs only when the file is run as a script."""
    test = stmt.test if isinstance(stmt, ast.If) else None
    if not isinstance(test, ast.Compare):
        return False
    sides = [test.left, *test.comparators]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    values = [s.value for s in sides if isinstance(s, ast.Constant)]
    return [type(op) for op in test.ops] == [ast.Eq] and (names, values) == (
        ["__name__"],
        ["__main__"],
    )


def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """The names fn binds in its own scope (parameters, assignments, imports, ...): inside fn
    they are not the builtins of the same name. Nested functions, classes and comprehensions
    have scopes of their own and are not looked into."""
    args = fn.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    names = {a.arg for a in every if a}
    declared_global = set()
    todo = list(fn.body) if isinstance(fn.body, list) else []
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(
            node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        ):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {name for name, _ in import_bindings(node)}
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global |= set(node.names)
        todo.extend(ast.iter_child_nodes(node))
    return names - declared_global


def set_names(tree: ast.Module) -> set[str]:
    """Names (seen, self.seen) assigned a set somewhere: seen.add(x) is no tensor's add."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                pairs = [(target, node.value)]
                if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs = list(zip(target.elts, node.value.elts, strict=False))
                names |= {terminal_name(t) for t, value in pairs if is_set(value)}
    return names


def is_set(node: ast.expr) -> bool:
    call = isinstance(node, ast.Call) and name_chain(node.func) == ["set"]
    return call or isinstance(node, (ast.Set, ast.SetComp))


def terminal_name(node: ast.AST) -> str | None:
    """`seen` for seen and self.seen."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


# ---------------------------------------------------------------------------------------------
# The learner's source
# ---------------------------------------------------------------------------------------------


class LearnerSource:
    def __init__(self, shown_as: str, text: str, tree: ast.Module):
        self.shown_as, self.text, self.tree = shown_as, text, tree

    @cached_property
    def aliases(self) -> dict[str, set[str]]:
        """Each name an import binds anywhere in the file, with the dotted paths it may name."""
        aliases: dict[str, set[str]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name, path in import_bindings(node):
                    aliases.setdefault(name, set()).add(path)
        return aliases

    def resolve(self, node: ast.AST) -> list[list[str]]:
        """The dotted paths a chain rooted at an import may name (tl.exp: triton.language.exp)."""
        parts = name_chain(node)
        if not parts or parts[0] not in self.aliases:
            return []
        return [path.split(".") + parts[1:] for path in sorted(self.aliases[parts[0]])]

    def is_jit(self, node: ast.AST) -> bool:
        return isinstance(node, ast.FunctionDef) and any(
            self.jit_decorator(d) for d in node.decorator_list
        )

    def autotuned(self, name: str) -> bool:
        """Whether the last top-level @triton.jit function `name` is under @triton.autotune."""
        kernels = [s for s in self.tree.body if self.is_jit(s) and s.name == name]
        return bool(kernels) and any(
            ".".join(path) in AUTOTUNE_DECORATORS
            for d in kernels[-1].decorator_list
            for path in self.resolve(d.func if isinstance(d, ast.Call) else d)
        )

    def autotune_configs(self, name: str) -> list | None:
        """The triton.Config list of `name`'s @triton.autotune, as the judge reads it from the
        source (drills.source_configs); None when it cannot be read without running code."""
        from drills.source_configs import autotune_configs

        return autotune_configs(self.tree, name) if self.autotuned(name) else None

    def jit_decorator(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return any(".".join(path) in JIT_DECORATORS for path in self.resolve(target))

    def host_statements(self) -> list[ast.stmt]:
        return [s for s in self.tree.body if not is_main_block(s)]

    @cached_property
    def top_level(self) -> dict[str, list[ast.stmt]]:
        """The statements that bind each top-level name: defs, classes and assignments."""
        bindings: dict[str, list[ast.stmt]] = {}
        for stmt in self.host_statements():
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [stmt.name]
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names = [
                    n.id
                    for t in targets
                    for n in ast.walk(t)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                ]
            else:
                continue
            for name in names:
                bindings.setdefault(name, []).append(stmt)
        return bindings

    def top_level_def(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        defs = [
            s
            for s in self.top_level.get(name, [])
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        return defs[-1] if defs else None

    # -- the API ------------------------------------------------------------------------------

    def escapes(self) -> list[Finding]:
        check = HostCheck(self)
        for stmt in self.host_statements():
            check.visit(stmt)
        return sorted(set(check.findings), key=lambda f: (f.line, f.what))

    def defines_function(self, name: str) -> bool:
        return name in self.top_level

    def jit_function_names(self) -> list[str]:
        return list(self.jit_names)

    @cached_property
    def jit_names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.name for s in self.tree.body if self.is_jit(s)))

    def raises_not_started(self, entry: str) -> bool:
        fn = self.top_level_def(entry)
        return fn is not None and any(
            isinstance(s, ast.Raise)
            and s.exc is not None
            and name_chain(s.exc.func if isinstance(s.exc, ast.Call) else s.exc) == ["NotStarted"]
            for s in fn.body
        )

    def kernel_module(self) -> tuple[str, list[Finding]]:
        return KernelModule(self).build()


# ---------------------------------------------------------------------------------------------
# escapes(): the host-code check
# ---------------------------------------------------------------------------------------------


class HostCheck(ast.NodeVisitor):
    """Visits host code (the caller skips main blocks; this skips kernel bodies)."""

    def __init__(self, source: LearnerSource):
        self.source = source
        self.findings: list[Finding] = []
        self.scopes: list[set[str]] = []  # the local names of the enclosing functions
        self.bases: set[int] = set()  # nodes that are the .value of an attribute
        self.called: set[int] = set()  # nodes that are the .func of a call
        self.compared: set[int] = set()  # `triton is None` is no use of the module
        self.set_names = set_names(source.tree)

    def flag(self, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(node.lineno, what))

    def is_builtin(self, name: str) -> bool:
        return not any(name in scope for scope in self.scopes)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in [*node.decorator_list, node.args, node.returns]:
            if expr:
                self.visit(expr)
        if self.source.is_jit(node):
            return  # kernel code: kernel_module() checks it
        self.scopes.append(local_names(node))
        for stmt in node.body:
            self.visit(stmt)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.visit(node.args)
        self.scopes.append(local_names(node))
        self.visit(node.body)
        self.scopes.pop()

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for problem in import_problems(node):
            self.flag(node, problem)

    visit_ImportFrom = visit_Import

    def visit_Compare(self, node: ast.Compare) -> None:
        self.compared |= {id(n) for n in [node.left, *node.comparators]}
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.called.add(id(node.func))
        args = node.args
        if (
            name_chain(node.func) == ["getattr"]
            and self.is_builtin("getattr")
            and len(args) in (2, 3)
            and isinstance(args[1], ast.Constant)
            and isinstance(args[1].value, str)
        ):
            # getattr(x, "name") is x.name, and is checked as such
            attribute = ast.copy_location(ast.Attribute(args[0], args[1].value, ast.Load()), node)
            if id(node) in self.called:
                self.called.add(id(attribute))
            for child in [attribute, *args[2:], *node.keywords]:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.bases.add(id(node.value))
        name = node.attr
        super_init = name == "__init__" and name_chain(getattr(node.value, "func", None)) == [
            "super"
        ]
        self.check_attribute_name(node, name, allowed=super_init)
        if self.source.resolve(node):
            if id(node) not in self.bases:  # the whole chain, once
                self.check_chain(node)
        elif id(node) in self.called and name in TENSOR_COMPUTE and not self.adds_to_set(node):
            self.flag(node, f"calls .{name}() on a tensor (torch computes outside the kernel)")
        self.generic_visit(node)

    def check_attribute_name(self, node: ast.AST, name: str, allowed: bool = False) -> None:
        hidden = name[0] == "_" and name not in UNDERSCORE_OK and not allowed
        if hidden or name in INTERNAL_ATTRIBUTES:
            self.flag(node, f"reads {name}")

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        """`case object(f_globals=g)` reads an attribute too."""
        for name in node.kwd_attrs:
            self.check_attribute_name(node, name)
        self.generic_visit(node)

    def adds_to_set(self, node: ast.Attribute) -> bool:
        return node.attr == "add" and terminal_name(node.value) in self.set_names

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if not isinstance(node.ctx, ast.Load):
            if name.startswith("__") and name not in WRITABLE_DUNDERS:
                self.flag(node, f"assigns {name}")
        elif name in ESCAPE_BUILTINS and self.is_builtin(name):
            computed = " with a computed name" if name == "getattr" else ""
            self.flag(node, f"uses {name}(){computed}")
        elif name.startswith("__") and name not in READABLE_DUNDERS:
            self.flag(node, f"reads {name}")
        elif name in self.source.aliases and id(node) not in self.bases:
            self.check_chain(node)

    def check_chain(self, node: ast.Name | ast.Attribute) -> None:
        """A whole chain rooted at an import: torch.cuda.synchronize, os.environ.get, tl."""
        for path in self.source.resolve(node):
            dotted = ".".join(path)
            problem = host_chain_problem(path, called=id(node) in self.called)
            # only torch.backends may be set (allow_tf32 and the like)
            stored = not isinstance(node.ctx, ast.Load) and path[:2] != ["torch", "backends"]
            if problem is None and stored:
                problem = f"assigns to {dotted}"
            if problem is None and id(node) not in self.compared and is_module(path):
                problem = f"passes the module {dotted} around as a value"
            if problem:
                self.flag(node, problem)


# ---------------------------------------------------------------------------------------------
# kernel_module(): the module of kernels the judge runs
# ---------------------------------------------------------------------------------------------


class KernelModule:
    """Builds the text of the kernel module, statement by statement, each on its
    original lines where it can be, so that the compiler's messages point at the learner's."""

    def __init__(self, source: LearnerSource):
        self.source = source
        self.aliases = {"triton": "triton", "tl": "triton.language"}  # the header's
        self.constants: set[str] = set()
        self.left_out_values: set[str] = set()  # module-level values that are not constants
        self.host_functions: set[str] = set()
        self.jit_defs: dict[str, ast.FunctionDef] = {}
        self.included: set[str] = set()
        self.chunks: list[tuple[int, str]] = []  # (first line, text)
        self.findings: list[Finding] = []

    def build(self) -> tuple[str, list[Finding]]:
        for stmt in self.source.tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                self.add_import(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                self.add_assignment(stmt)
            elif self.source.is_jit(stmt):
                self.add_jit_def(stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.host_functions.add(stmt.name)
                self.constants.discard(stmt.name)
            elif not is_main_block(stmt):  # if, for, with, try: what they bind is unknown
                stored = {
                    n.id
                    for n in ast.walk(stmt)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                }
                self.constants -= stored
                self.left_out_values |= stored
        self.drop_unsafe_bodies()
        for name in sorted(self.included, key=lambda n: self.jit_defs[n].lineno):
            fn = self.jit_defs[name]
            self.chunks.append((fn.lineno - 1, self.decorator(fn)))
            self.chunks.append((fn.lineno, ast.get_source_segment(self.source.text, fn)))
        return self.text(), sorted(self.findings, key=lambda f: f.line)

    def leave_out(self, line: int, what: str, why: str) -> None:
        self.findings.append(Finding(line, f"left {what} out of the kernels the judge runs: it {why}"))

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source.text, node)

    def text(self) -> str:
        """The chunks on their original lines (a chunk that would overlap the one before moves
        down); the header joins the first line when that holds an import or a constant."""
        chunks = sorted(self.chunks, key=lambda c: c[0])
        if chunks and chunks[0][0] == 1 and not chunks[0][1].startswith("@"):
            chunks[0] = (1, f"{KERNEL_HEADER}; {chunks[0][1]}")
        else:
            chunks.insert(0, (1, KERNEL_HEADER))
        lines: list[str] = []
        for line, text in chunks:
            lines += [""] * (line - 1 - len(lines))
            lines += text.split("\n")
        return "\n".join(lines) + "\n"

    def add_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        """Imports from triton and math, re-emitted as written; no others."""
        bindings = import_bindings(stmt)
        if not bindings or any(
            path.split(".")[0] not in ("triton", "math") for _, path in bindings
        ):
            return
        paths = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else []
        paths += [path for _, path in bindings]
        problem = next(filter(None, (host_chain_problem(p.split(".")) for p in paths)), None)
        if problem:
            self.leave_out(stmt.lineno, "this import", problem)
            return
        self.chunks.append((stmt.lineno, self.segment(stmt)))
        self.aliases.update(bindings)

    def add_assignment(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        """A constant (X = 4, X = tl.constexpr(4), X: tl.constexpr = 4, X *= 2), if its value
        is safe to compute; any other module-level value is left out."""
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        plain_targets = all(
            isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store))
            for t in targets
            for n in ast.walk(t)
        )
        safe = (
            plain_targets
            and stmt.value is not None
            and self.safe_value(stmt.value)
            and (not isinstance(stmt, ast.AnnAssign) or self.safe_annotation(stmt.annotation))
            and (not isinstance(stmt, ast.AugAssign) or set(names) <= self.constants)
            and not set(names) & set(self.aliases)
        )
        if safe:
            self.chunks.append((stmt.lineno, self.segment(stmt)))
            self.constants |= set(names)
            self.left_out_values -= set(names)
        else:
            self.constants -= set(names)
            self.left_out_values |= set(names)

    def safe_value(self, node: ast.expr) -> bool:
        """Whether the judge may evaluate node: constants, arithmetic, earlier constants,
        triton.language and math names, tl.constexpr(...) and math functions of those."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.safe_value(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            return self.safe_value(node.operand)
        if isinstance(node, ast.BinOp):
            return self.safe_value(node.left) and self.safe_value(node.right)
        if isinstance(node, ast.Call):
            path = self.path(node.func)
            if path:
                callee = ".".join(path) in CONSTANT_CALLS or path[0] == "math"
            else:
                chain = name_chain(node.func)
                callee = chain in (["float"], ["int"], ["bool"]) and chain[0] not in self.constants
            return (
                callee
                and self.safe_value(node.func)
                and all(self.safe_value(a) for a in [*node.args, *(k.value for k in node.keywords)])
            )
        if isinstance(node, ast.Name) and node.id not in self.aliases:
            return node.id in self.constants or node.id in KERNEL_BUILTINS
        path = self.path(node)
        return bool(path) and kernel_chain_problem(path) is None and not is_module(path)

    def safe_annotation(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return TYPE_STRING.fullmatch(node.value) is not None
        return self.safe_value(node)

    def path(self, node: ast.AST) -> list[str] | None:
        parts = name_chain(node)
        if not parts or parts[0] not in self.aliases:
            return None
        return self.aliases[parts[0]].split(".") + parts[1:]

    def add_jit_def(self, fn: ast.FunctionDef) -> None:
        """A kernel whose defaults and annotations are safe (they are evaluated when the module
        is exec'd); its body is checked once every constant is known."""
        self.jit_defs[fn.name] = fn
        self.included.discard(fn.name)  # an earlier kernel of the same name is replaced
        self.constants.discard(fn.name)
        args = fn.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for default in [*args.defaults, *filter(None, args.kw_defaults)]:
            if not self.safe_value(default):
                self.leave_out(
                    default.lineno, fn.name, "has a default value that is not a constant"
                )
                return
        for annotation in [a.annotation for a in every if a] + [fn.returns]:
            if annotation and not self.safe_annotation(annotation):
                self.leave_out(annotation.lineno, fn.name, "has an annotation that is not a type")
                return
        if fn.name in self.aliases:
            self.leave_out(fn.lineno, fn.name, f"hides the module {fn.name}")
            return
        self.included.add(fn.name)

    def decorator(self, fn: ast.FunctionDef) -> str:
        """@triton.jit, with the options that only tune compilation, if given as literals."""
        options = []
        for d in fn.decorator_list:
            if isinstance(d, ast.Call) and self.source.jit_decorator(d):
                for k in d.keywords:
                    with contextlib.suppress(ValueError, TypeError, SyntaxError, RecursionError):
                        if k.arg in KEPT_JIT_OPTIONS:
                            ast.literal_eval(k.value)  # raises unless it is a literal
                            options.append(f"{k.arg}={ast.unparse(k.value)}")
        return f"@triton.jit({', '.join(options)})" if options else "@triton.jit"

    def drop_unsafe_bodies(self) -> None:
        """Leave out kernels whose bodies fail the check, until none does (a kernel that calls
        one left out is left out too)."""
        changed = True
        while changed:
            changed = False
            for name in sorted(self.included):
                problem = self.body_problem(self.jit_defs[name])
                if problem:
                    self.leave_out(problem[0], name, problem[1])
                    self.included.discard(name)
                    changed = True

    def body_problem(self, fn: ast.FunctionDef) -> tuple[int, str] | None:
        """Whether the body can make triton's code generator run Python the learner chose.
        The generator looks names up in the kernel's locals, then in this module (which holds
        only vetted things), then in its own builtins; it calls whatever it finds."""
        nodes = [n for stmt in fn.body for n in ast.walk(stmt)]
        args = fn.args
        local = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a}
        local |= {
            n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        bases = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                return node.lineno, "imports a module"
            if isinstance(node, ast.Name) and node.id.startswith("__"):
                return node.lineno, f"reads {node.id}"
            # the generator's own getattr, found even where a local of that name comes later
            if isinstance(node, ast.Name) and node.id == "getattr":
                return node.lineno, "uses getattr"
            if isinstance(node, ast.Attribute) and node.attr[0] == "_":
                return node.lineno, f"reads {node.attr}"
        for node in nodes:
            parts = name_chain(node) if id(node) not in bases else None
            problem = parts and self.chain_problem(node, parts, local)
            if problem:
                return node.lineno, problem
        return None

    def chain_problem(self, node: ast.expr, parts: list[str], local: set[str]) -> str | None:
        """A whole chain in a kernel body: a local (x.to), an import (tl.exp), a constant, a
        kernel, or an allowed builtin. Imports are checked even where a local has the same
        name: the generator finds the module until the local is assigned."""
        root, dotted = parts[0], ".".join(parts)
        stored = not isinstance(node.ctx, ast.Load)
        if root in self.aliases:
            path = self.path(node)
            if stored:
                return f"assigns to {'.'.join(path)}"
            as_value = is_module(path) and f"passes the module {'.'.join(path)} around as a value"
            return kernel_chain_problem(path) or as_value or None
        if root in local:
            return None
        if stored:
            return f"assigns to {dotted}"
        if root in self.included:
            return f"reads {dotted}, an attribute of a kernel" if len(parts) > 1 else None
        if root in self.constants or root in KERNEL_BUILTINS:
            return None
        if root in self.jit_defs:
            return f"calls {root}, which was left out of the kernels the judge runs"
        if root in self.host_functions:
            return f"calls {root}, which is not @triton.jit"
        if root in self.left_out_values:
            return f"reads {root}, a module-level value that is not a constant"
        if hasattr(builtins, root):
            return f"uses the builtin {root}"
        return f"reads {root}, which is not defined"
