"""kernel_module(): the learner's @triton.jit functions, with the triton and math imports and
the constants they need, as a module of their own.

The judge runs this module on its own buffers (drills/judge/executor.py) and compiles it for
sm_90 (gpu_compile). Both run whatever Python callables a kernel body reaches (the interpreter
runs kernel bodies as Python, triton's code generator calls them at compile time), so
everything in it is vetted: nothing in it can run Python the learner chose.
"""

import ast
import builtins
import contextlib
import copy
import re
from collections.abc import Mapping

from drills.judge.names import (
    FUNCTION_MODULES,
    host_chain_problem,
    import_bindings,
    is_module,
    kernel_chain_problem,
    kernel_library,
    name_chain,
    words,
)
from drills.judge.reading import Finding, SourceText, is_main_block
from drills.judge.source_configs import decided

# ---------------------------------------------------------------------------------------------
# What the kernel module (run and compiled by the judge) may contain
# ---------------------------------------------------------------------------------------------

KERNEL_HEADER = "import triton; import triton.language as tl"
KERNEL_BUILTINS = words(
    "range min max len int float bool print isinstance zip enumerate tuple list abs round"
)
CONSTANT_CALLS = frozenset({"triton.language.constexpr", "triton.language.core.constexpr"})
# triton's functions of plain numbers, which a module-level constant may call
PURE_CALLS = frozenset({"triton.next_power_of_2", "triton.cdiv"})
IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
KEPT_JIT_OPTIONS = frozenset({"do_not_specialize", "do_not_specialize_on_alignment", "noinline"})
# a string annotation triton reads as a type ("tl.constexpr", "*fp32"), never as code
TYPE_STRING = re.compile(r"[\w.* ]*")

# ---------------------------------------------------------------------------------------------
# kernel_module(): the module of kernels the judge runs
# ---------------------------------------------------------------------------------------------


class KernelModule:
    """Builds the text of the kernel module, statement by statement, each on its
    original lines where it can be, so that the compiler's messages point at the learner's."""

    def __init__(self, source: SourceText, environ: Mapping[str, str]):
        self.source = source
        self.lines = source.text.split("\n")  # as Python numbers them
        self.environ = environ  # where the module will run: a module-level `if` may ask
        self.aliases = {"triton": "triton", "tl": "triton.language"}  # the header's
        self.constants: set[str] = set()
        self.left_out_values: set[str] = set()  # module-level values that are not constants
        self.host_functions: set[str] = set()
        self.plain_defs: dict[str, ast.FunctionDef] = {}  # host functions triton.jit() may wrap
        self.jit_defs: dict[str, ast.FunctionDef] = {}
        self.jit_options: dict[str, ast.expr] = {}  # triton.jit(options)(fn): its decorator
        self.owner: dict[str, ast.ClassDef] = {}  # a kernel defined in a class body
        self.included: set[str] = set()
        # another name for a kernel (matmul_kernel = kernel_fma), with its line
        self.kernel_aliases: dict[str, tuple[int, str]] = {}
        self.classes: dict[str, ast.ClassDef] = {}  # classes whose bodies hold kernels
        # namespaces of kernels (FlagGems' tle): a module made in the file, with its line and
        # name, and the kernel each of its attributes is set to, with that line
        self.namespaces: dict[str, tuple[int, str]] = {}
        self.members: dict[str, dict[str, tuple[int, str]]] = {}
        self.chunks: list[tuple[int, str]] = []  # (first line, text)
        self.findings: list[Finding] = []

    def build(self) -> tuple[str, list[Finding]]:
        for index, stmt in enumerate(self.source.tree.body):
            self.add_statement(stmt, self.source.tree.body[:index])
        self.drop_unsafe_bodies()
        for name in sorted(self.included, key=lambda n: self.jit_defs[n].lineno):
            fn = self.jit_defs[name]
            # a kernel of a class body stays in its class, indented as it was; any other starts
            # its line (one in a module-level `if` too)
            indent = self.lines[fn.lineno - 1][: fn.col_offset] if name in self.owner else ""
            self.chunks.append((fn.lineno - 1, indent + self.decorator(fn)))
            self.chunks.append((fn.lineno, indent + ast.get_source_segment(self.source.text, fn)))
        self.add_other_names()
        return self.text(), sorted(self.findings, key=lambda f: f.line)

    def add_other_names(self) -> None:
        """The aliases of the kernels kept, and the classes that hold some (their kernels are
        in them already, on their lines), where the module had them."""
        for alias, (line, name) in self.kernel_aliases.items():
            # of the kernel the module keeps, which the module defines before the alias or not
            # at all (an alias of a kernel defined again later names the earlier one)
            if name in self.included and self.jit_defs[name].end_lineno < line:
                self.chunks.append((line, f"{alias} = {name}"))
        for name, cls in self.classes.items():
            if any(self.owner.get(k) is cls for k in self.included):
                self.chunks.append((cls.lineno, f"class {name}:"))
        for name, (line, module_name) in self.namespaces.items():
            kept = [
                (at, f"{name}.{attribute} = {self.kernel_named(value)}")
                for attribute, (at, value) in self.members[name].items()
                if self.member_problem(name, attribute) is None
            ]
            if kept:  # the header's triton is a module: its type is ModuleType
                self.chunks += [(line, f"{name} = type(triton)({module_name!r})"), *kept]

    def add_statement(self, stmt: ast.stmt, before: list[ast.stmt]) -> None:
        """One module-level statement; `before`, the module's statements ahead of it."""
        if self.namespace_statement(stmt):
            return
        if not isinstance(stmt, (ast.If, ast.Try)):  # their statements are read one by one
            self.end_namespaces(stmt)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.add_import(stmt)
        elif self.other_name_for_kernels(stmt):
            pass
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.add_assignment(stmt, before)
        elif self.source.is_jit(stmt):
            self.add_jit_def(stmt)
        elif isinstance(stmt, ast.ClassDef) and self.class_of_kernels(stmt):
            pass
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.host_functions.add(stmt.name)
            self.constants.discard(stmt.name)
            if isinstance(stmt, ast.FunctionDef):
                self.plain_defs[stmt.name] = stmt
        elif (taken := self.statements_run(stmt, before)) is not None:
            for inner in taken:
                self.add_statement(inner, before)
        elif not is_main_block(stmt):  # for, with, try, an `if` it cannot decide: unknown
            self.end_namespaces(stmt)
            stored = {
                n.id
                for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            self.constants -= stored
            self.left_out_values |= stored

    def namespace_statement(self, stmt: ast.stmt) -> bool:
        """Whether stmt makes a namespace of kernels or sets one of its attributes, and if so
        takes it: FlagGems' kernels call helpers of a module imported as `tle`
        (tle.program_id(0)); a single file makes that module itself, `tle =
        types.ModuleType("tle")`, and sets its attributes to @triton.jit functions
        (`tle.program_id = program_id`). Triton lets a kernel reach a global whose type is
        ModuleType and call the @triton.jit functions it holds; a SimpleNamespace, a namedtuple
        or a class it refuses."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            return False
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name) and target.id not in self.aliases:
            module_name = self.module_made(value)
            if module_name is None:
                return False
            self.end_namespaces(stmt)
            for names in (self.constants, self.left_out_values, self.host_functions):
                names.discard(target.id)
            self.namespaces[target.id] = (stmt.lineno, module_name)
            self.members[target.id] = {}
            return True
        parts = name_chain(target)
        if (
            parts is not None
            and len(parts) == 2
            and parts[0] in self.namespaces
            and not parts[1].startswith("_")
            and isinstance(value, ast.Name)
        ):
            self.members[parts[0]][parts[1]] = (stmt.lineno, value.id)
            return True
        return False

    def module_made(self, value: ast.expr) -> str | None:
        """The name of the module that `types.ModuleType("name")` makes, where value is that
        call with a plain name (a dotted one could be one that triton's code generator swaps for
        a backend's module); None where it is anything else."""
        if not (isinstance(value, ast.Call) and not value.keywords and 1 <= len(value.args) <= 2):
            return None
        paths = self.source.resolve(value.func)
        strings = all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in value.args)
        if not paths or any(p != ["types", "ModuleType"] for p in paths) or not strings:
            return None
        name = value.args[0].value
        return name if name.isidentifier() else None

    def end_namespaces(self, stmt: ast.stmt) -> None:
        """A module-level statement that binds a namespace's name again, or sets or deletes
        anything of it, ends it: what it holds is no longer known (a later binding is read as
        any other)."""
        for name in list(self.namespaces):
            if touches(stmt, name):
                del self.namespaces[name], self.members[name]
                self.left_out_values.add(name)

    def member_problem(self, namespace: str, attribute: str) -> str | None:
        """Why a kernel may not call namespace.attribute: it is no kept kernel, or names one
        defined again later (the judge keeps the last definition, Python's attribute the
        earlier)."""
        dotted = f"{namespace}.{attribute}"
        if attribute not in self.members[namespace]:
            return f"reads {dotted}, which the file never sets to a @triton.jit function"
        line, value = self.members[namespace][attribute]
        kernel = self.kernel_named(value)
        if kernel not in self.jit_defs or kernel in self.owner:
            return f"calls {dotted}, which is {value}: a namespace holds @triton.jit functions only"
        redefined = self.kernel_aliases.get(value, (0,))[0] >= line
        if redefined or self.jit_defs[kernel].end_lineno >= line:
            return f"calls {dotted}, set to a {value} that the file defines again later"
        if kernel not in self.included:
            return f"calls {dotted}, which is {kernel}, left out of the kernels the judge runs"
        return None

    def other_name_for_kernels(self, stmt: ast.stmt) -> bool:
        """Whether stmt names a kernel another way, and if so takes it: a kernel made by calling
        triton.jit on a plain def (k = triton.jit(fn), or with options, triton.jit(
        do_not_specialize=[...])(fn)), or an alias (matmul_kernel = kernel_fma)."""
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            return False
        target, value = stmt.targets[0].id, stmt.value
        wrapped = (
            isinstance(value, ast.Call)
            and len(value.args) == 1
            and not value.keywords
            and isinstance(value.args[0], ast.Name)
            and value.args[0].id in self.plain_defs
            and self.source.jit_decorator(value.func)
        )
        if wrapped:
            fn = self.plain_defs.pop(value.args[0].id)
            self.host_functions.discard(fn.name)
            self.jit_options[fn.name] = value.func
            self.add_jit_def(fn)
            value = value.args[0]
        named = self.kernel_named(value.id if isinstance(value, ast.Name) else "")
        if named not in self.jit_defs:
            return False
        if target != named:
            self.kernel_aliases[target] = (stmt.lineno, named)
        self.constants.discard(target)
        self.left_out_values.discard(target)
        return True

    def kernel_named(self, name: str) -> str:
        """The kernel a name stands for, through its aliases (an alias of an alias too); the
        name itself where it is no alias."""
        return self.kernel_aliases.get(name, (0, name))[1]

    def class_of_kernels(self, cls: ast.ClassDef) -> bool:
        """Whether a module-level class holds @triton.jit functions, and if so takes them: they
        are kernels, launched as Op.kernel[grid] (tritonbench's way). The rest of the class is
        host code, which the judge leaves out."""
        for stmt in cls.body:
            if self.source.is_jit(stmt) and stmt.name in self.jit_defs:
                self.leave_out(
                    stmt.lineno,
                    f"{cls.name}.{stmt.name}",
                    "shares its name with another kernel, and a launch names its kernel by that",
                )
            elif self.source.is_jit(stmt):
                self.add_jit_def(stmt, owner=cls)
                self.classes[cls.name] = cls
        return cls.name in self.classes

    def statements_run(self, stmt: ast.stmt, before: list[ast.stmt]) -> list[ast.stmt] | None:
        """The statements a module-level `if` or `try` runs where the module runs, or None
        where it is neither or the judge cannot tell."""
        if isinstance(stmt, ast.If):
            return self.branch(stmt, before)
        if isinstance(stmt, ast.Try):
            return self.import_tried(stmt)
        return None

    def branch(self, stmt: ast.If, before: list[ast.stmt]) -> list[ast.stmt] | None:
        """The branch of a module-level `if` the module takes where it runs (if HAS_FAST_EXP:
        exp = ... else: exp = tl.exp), decided by the judge's reader of host code
        (drills.judge.source_configs: os.environ, constants, comparisons), or None."""
        taken = self.decided(stmt.test, before)
        return None if taken is None else (stmt.body if taken else stmt.orelse)

    def decided(self, test: ast.expr, before: list[ast.stmt]) -> bool | None:
        """Whether a module-level test holds where the module runs, after `before`; None where
        the judge's reader of host code cannot tell."""
        try:
            return decided(test, before, self.environ)
        except RecursionError:  # nested past what the reader follows: undecided, as any other
            return None

    def import_tried(self, stmt: ast.Try) -> list[ast.stmt] | None:
        """The statements a module-level `try: from triton... import x / except ImportError:
        from triton... import x` runs, in this environment (the same triton as everywhere the
        file runs): the body where each of its imports of triton or math resolves, else the
        handler's; None where it is not such a `try`."""
        handlers = stmt.handlers
        caught = [name_chain(h.type) if h.type is not None else None for h in handlers]
        if len(handlers) != 1 or caught[0] is None or caught[0][-1] not in IMPORT_ERRORS:
            return None
        imports_only = all(isinstance(s, (ast.Import, ast.ImportFrom)) for s in stmt.body)
        if stmt.finalbody or not imports_only:
            return None
        paths = [path for s in stmt.body for _, path in import_bindings(s)]
        if not paths or any(path.split(".")[0] not in ("triton", "math") for path in paths):
            return None
        if all(map(importable, paths)):
            return stmt.body + stmt.orelse
        return handlers[0].body

    def leave_out(self, line: int, what: str, why: str) -> None:
        self.findings.append(
            Finding(line, f"left {what} out of the kernels the judge runs: it {why}")
        )

    def segment(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source.text, node)

    def text(self) -> str:
        """The chunks on their original lines (a chunk that would overlap the one before moves
        down); the header joins the first line when that holds an import or a constant."""
        chunks = sorted(self.chunks, key=lambda c: c[0])
        if chunks and chunks[0][0] == 1 and not chunks[0][1].startswith(("@", "class ")):
            chunks[0] = (1, f"{KERNEL_HEADER}; {chunks[0][1]}")
        else:
            chunks.insert(0, (1, KERNEL_HEADER))
        lines: list[str] = []
        for line, text in chunks:
            lines += [""] * (line - 1 - len(lines))
            lines += text.split("\n")
        return "\n".join(lines) + "\n"

    def add_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        """Imports from triton, math and the kernel libraries, re-emitted as written; no
        others."""
        bindings = import_bindings(stmt)
        if not bindings:
            return
        if all(kernel_library(path.split(".")) for _, path in bindings):
            paths, check = [path for _, path in bindings], kernel_chain_problem
        elif all(path.split(".")[0] in ("triton", "math") for _, path in bindings):
            paths = [a.name for a in stmt.names] if isinstance(stmt, ast.Import) else []
            paths, check = paths + [path for _, path in bindings], host_chain_problem
        else:
            return
        problem = next(filter(None, (check(p.split(".")) for p in paths)), None)
        problem = problem or hidden_line_break(self.segment(stmt))
        if problem:
            self.leave_out(stmt.lineno, "this import", problem)
            return
        self.chunks.append((stmt.lineno, self.segment(stmt)))
        self.aliases.update(bindings)

    def add_assignment(
        self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, before: list[ast.stmt]
    ) -> None:
        """A constant (X = 4, X = tl.constexpr(4), X: tl.constexpr = 4, X *= 2), if its value
        is safe to compute; any other module-level value is left out."""
        if self.module_alias(stmt):
            return
        written = stmt
        stmt = self.conditionals_decided(stmt, before)
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        plain_targets = all(
            isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store))
            for t in targets
            for n in ast.walk(t)
        )
        safe = (
            plain_targets
            and not hidden_line_break(self.segment(written))
            and stmt.value is not None
            and self.safe_value(stmt.value)
            and (not isinstance(stmt, ast.AnnAssign) or self.safe_annotation(stmt.annotation))
            and (not isinstance(stmt, ast.AugAssign) or set(names) <= self.constants)
            and not set(names) & set(self.aliases)
        )
        if safe:
            text = self.segment(stmt) if stmt is written else ast.unparse(stmt)
            self.chunks.append((stmt.lineno, text))
            self.constants |= set(names)
            self.left_out_values -= set(names)
        else:
            self.constants -= set(names)
            self.left_out_values |= set(names)

    def conditionals_decided(self, stmt: ast.stmt, before: list[ast.stmt]) -> ast.stmt:
        """stmt with each conditional expression whose test the judge's reader of host code
        decides where the module runs (TILE = 32 if INTERPRETING else 128, INTERPRETING read
        from os.environ) replaced by the value it takes there; stmt itself where it has none."""
        if not any(isinstance(node, ast.IfExp) for node in ast.walk(stmt)):
            return stmt
        module = self

        class Decide(ast.NodeTransformer):
            def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
                taken = module.decided(node.test, before)
                if taken is None:
                    return self.generic_visit(node)
                return self.visit(node.body if taken else node.orelse)

        return ast.fix_missing_locations(Decide().visit(copy.deepcopy(stmt)))

    def module_alias(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> bool:
        """Whether stmt names one of triton.language's modules of functions, and if so takes it
        as an import of that module: Inductor's triton_helpers writes `math = tl.math` and
        `libdevice = tl.extra.libdevice`, and its kernels call math.exp. The judge's module
        imports it on that line (tl.extra.libdevice is an attribute only once imported); a name
        the file already gives a meaning (tl, a kernel) or a hidden one (__builtins__) stays
        what it was."""
        if not (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        ):
            return False
        name, path = stmt.targets[0].id, self.path(stmt.value)
        taken = (self.aliases, self.jit_defs, self.kernel_aliases, self.namespaces, self.classes)
        if not path or ".".join(path) not in FUNCTION_MODULES:
            return False
        if name.startswith("_") or any(name in names for names in taken):
            return False
        for names in (self.constants, self.left_out_values, self.host_functions):
            names.discard(name)
        self.chunks.append((stmt.lineno, f"import {'.'.join(path)} as {name}"))
        self.aliases[name] = ".".join(path)
        return True

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
        if isinstance(node, ast.IfExp):
            return all(map(self.safe_value, (node.test, node.body, node.orelse)))
        if isinstance(node, ast.Compare):
            return all(map(self.safe_value, (node.left, *node.comparators)))
        if isinstance(node, ast.BoolOp):
            return all(map(self.safe_value, node.values))
        if isinstance(node, ast.Call):
            path = self.path(node.func)
            if path:
                dotted = ".".join(path)
                callee = dotted in CONSTANT_CALLS | PURE_CALLS or path[0] == "math"
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

    def add_jit_def(self, fn: ast.FunctionDef, owner: ast.ClassDef | None = None) -> None:
        """A kernel whose defaults and annotations are safe (they are evaluated when the module
        is exec'd); its body is checked once every constant is known. `owner`: the class whose
        body defines it."""
        self.jit_defs[fn.name] = fn
        if owner is None:
            self.owner.pop(fn.name, None)
        else:
            self.owner[fn.name] = owner
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
        for d in [*fn.decorator_list, *filter(None, [self.jit_options.get(fn.name)])]:
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
        broken = hidden_line_break(self.segment(fn))
        if broken:
            return fn.lineno, broken
        nodes = [n for stmt in fn.body for n in ast.walk(stmt)]
        bases = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
        for node in nodes:
            unseen = NOT_COMPILED.get(type(node))
            if unseen:
                return node.lineno, unseen
            if isinstance(node, (ast.For, ast.While)) and node.orelse:
                # the compiler never looks at a loop's else; the interpreter runs it
                return node.orelse[0].lineno, "gives a loop an else, which triton never compiles"
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                return node.lineno, "imports a module"
            if isinstance(node, ast.Name) and node.id.startswith("__"):
                return node.lineno, f"reads {node.id}"
            # the generator's own getattr, found even where a local of that name comes later
            if isinstance(node, ast.Name) and node.id == "getattr":
                return node.lineno, "uses getattr"
            if isinstance(node, ast.Attribute) and node.attr[0] == "_":
                return node.lineno, f"reads {node.attr}"
        later_def = self.later_def_line(fn)
        if later_def:
            return later_def, (
                "has a line inside it that starts with `def ` (in a string): triton's "
                "interpreter takes the last such line for the kernel's first"
            )
        in_constexpr_branch = constexpr_branches(fn)
        for node, local in scoped(fn):
            parts = name_chain(node) if id(node) not in bases else None
            problem = parts and self.chain_problem(node, parts, local)
            if problem and not (id(node) in in_constexpr_branch and self.undefined(parts, local)):
                return node.lineno, problem
        return None

    def later_def_line(self, fn: ast.FunctionDef) -> int | None:
        """The line, after fn's own `def`, of one whose text starts with `def `: none can but in a
        string (a kernel defines no function), and the interpreter reads the kernel from the
        last such line of its source, the compiler from the first."""
        lines = self.lines[fn.lineno : fn.end_lineno]
        return next(
            (fn.lineno + 1 + i for i, line in enumerate(lines) if line.strip().startswith("def ")),
            None,
        )

    def undefined(self, parts: list[str], local: set[str]) -> bool:
        """Whether a name read in a kernel body is not defined in the kernel module, nor by
        Python: a kernel that reaches it stops with a NameError, and runs nothing else. Inside
        a branch that a constexpr decides, triton compiles it only where the branch is taken
        (attorch keeps such branches for features a launch turns off)."""
        root = parts[0]
        return not (
            root in local
            or root in self.aliases
            or root in self.included
            or root in self.constants
            or root in self.classes
            or root in self.kernel_aliases
            or root in self.namespaces
            or root in KERNEL_BUILTINS
            or hasattr(builtins, root)
            or root in interpreter_names()
        )

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
            plumbing = next((a for a in parts[1:] if a not in value_attributes()), None)
            return plumbing and f"reads {dotted}: {plumbing} is no attribute of a Triton value"
        if stored:
            return f"assigns to {dotted}"
        if root in self.namespaces:
            if len(parts) == 1:
                return f"passes the namespace {root} around as a value"
            if len(parts) > 2:
                return f"reads {dotted}, an attribute of a kernel"
            return self.member_problem(root, parts[1])
        if root in self.classes:
            return (
                f"reads {dotted}: triton lets a kernel reach no class's attributes, only the "
                "module's @triton.jit functions and tl.constexpr values"
            )
        if root in self.owner:
            return (
                f"reads {root}, a kernel of the class {self.owner[root].name}: a kernel reaches "
                "another by a module-level name only (a class body is no scope of its functions)"
            )
        root = self.kernel_named(root)
        if root in self.included:
            return f"reads {dotted}, an attribute of a kernel" if len(parts) > 1 else None
        if root in self.constants or root in KERNEL_BUILTINS:
            # a constant is read, never followed: what it holds may be a class of
            # triton.language whose attributes reach anything (tl.semantic.TritonSemantic)
            return (
                f"reads {dotted}: a kernel reads a constant or a builtin, not its attributes"
                if len(parts) > 1
                else None
            )
        if root in self.jit_defs:
            return f"calls {root}, which was left out of the kernels the judge runs"
        if root in self.host_functions:
            return (
                f"calls {root}, which is not @triton.jit: decorate {root} with @triton.jit (a "
                "kernel can call only @triton.jit functions and triton.language)"
            )
        if root in self.left_out_values:
            return f"reads {root}, a module-level value that is not a constant"
        if hasattr(builtins, root):
            return f"uses the builtin {root}"
        return f"reads {root}, which is not defined"


COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def touches(stmt: ast.stmt, name: str) -> bool:
    """Whether a module-level statement binds `name`, or sets or deletes an attribute or item of
    anything rooted at it (name.x = ..., del name.x, name.x += 1); the bodies of the functions
    and classes it defines run later, if ever, and are not read."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any(bound == name for bound, _ in import_bindings(stmt))
    pending: list[ast.AST] = [stmt]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
            pending += node.decorator_list  # what runs where it is defined
            continue
        if isinstance(node, (ast.Lambda, *COMPREHENSIONS)):
            continue
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        written = isinstance(node, (ast.Attribute, ast.Subscript))
        if written and not isinstance(node.ctx, ast.Load):
            inner = node
            while isinstance(inner, (ast.Attribute, ast.Subscript)):
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == name:
                return True
        pending += ast.iter_child_nodes(node)
    return False


# what triton's code generator refuses in a kernel, and the interpreter would run: a branch that
# a constexpr removes is compiled nowhere, so such code must not stand even there
NOT_COMPILED = {
    ast.Lambda: "defines a lambda",
    ast.FunctionDef: "defines a function inside the kernel",
    ast.AsyncFunctionDef: "defines a function inside the kernel",
    ast.ClassDef: "defines a class inside the kernel",
    ast.Try: "catches exceptions (try), which triton does not compile",
    ast.TryStar: "catches exceptions (try), which triton does not compile",
    ast.Global: "declares a global",
    ast.Nonlocal: "declares a nonlocal",
}
# what a test that triton decides at compile time is made of: constexpr arguments and constants
STATIC_TEST = (ast.Name, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.Compare, ast.BinOp, ast.Load)
STATIC_TEST += (ast.And, ast.Or, ast.Not, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
STATIC_TEST += (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Is, ast.IsNot)


def constexpr_branches(fn: ast.FunctionDef) -> set[int]:
    """The ids of the nodes inside the branches of an `if` whose test only constexpr arguments
    and constants decide (if USE_BIAS:, if ACTIVATION == "gelu":): triton compiles the branch a
    launch takes and never looks at the other."""
    args = fn.args
    constexprs = {
        a.arg
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if a.annotation is not None
        and (name_chain(a.annotation) or [""])[-1] == "constexpr"
        or isinstance(a.annotation, ast.Constant)
        and str(a.annotation.value).endswith("constexpr")
    }
    inside: set[int] = set()
    for node in ast.walk(fn):
        static = isinstance(node, ast.If) and all(
            isinstance(n, STATIC_TEST) and (not isinstance(n, ast.Name) or n.id in constexprs)
            for n in ast.walk(node.test)
        )
        if static:
            inside |= {id(n) for stmt in node.body + node.orelse for n in ast.walk(stmt)}
    return inside


def scoped(fn: ast.FunctionDef) -> list[tuple[ast.AST, set[str]]]:
    """Every node of fn's body with the names local to it: fn's arguments and the names its body
    assigns, and inside a comprehension, that comprehension's own targets too. A name bound only
    in a comprehension is not a local of the body around it: there Python looks it up in the
    module (the interpreter's module, which holds its own imports)."""
    args = fn.args
    local = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs] if a}
    found: list[tuple[ast.AST, set[str]]] = []

    def stores(node: ast.AST) -> set[str]:
        if isinstance(node, COMPREHENSIONS + (ast.Lambda,)):
            return set()
        stored = isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
        own = {node.id} if stored else set()
        return own.union(*(stores(child) for child in ast.iter_child_nodes(node)))

    def visit(node: ast.AST, names: set[str]) -> None:
        if isinstance(node, COMPREHENSIONS):
            names = names | {
                n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)
            }
        found.append((node, names))
        for child in ast.iter_child_nodes(node):
            visit(child, names)

    local |= set().union(*(stores(stmt) for stmt in fn.body))
    for stmt in fn.body:
        visit(stmt, local)
    return found


_value_attributes: set[str] = set()
# what a Triton value carries for the compiler, not for a kernel: `x.handle` is an IR value when
# compiled and a numpy array when interpreted, so code that reads it is no Triton program
IR_PLUMBING = frozenset({"handle", "to_ir", "item", "mangle", "codegen_name", "cache_key_part"})


def value_attributes() -> set[str]:
    """The attributes a kernel may read of a local (a block, a pointer, a constexpr, a dtype, a
    tuple, a tensor descriptor): the public ones of triton.language's value and type classes,
    their methods and what their own code sets on `self`, but the IR's plumbing."""
    if not _value_attributes:
        import inspect

        from triton.language import core

        classes = {
            k
            for c in vars(core).values()
            if isinstance(c, type) and issubclass(c, (core.base_value, core.base_type))
            for k in c.__mro__
            if k.__module__.startswith("triton.language")
        }
        for cls in classes:
            _value_attributes.update(n for n in dir(cls) if not n.startswith("_"))
        files = {inspect.getsourcefile(cls) for cls in classes} - {None}
        names = {cls.__name__ for cls in classes}
        for file in files:  # each read once: what the classes' own code sets on `self`
            with open(file, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name in names:
                    _value_attributes.update(
                        n.attr
                        for n in ast.walk(node)
                        if isinstance(n, ast.Attribute)
                        and isinstance(n.ctx, ast.Store)
                        and name_chain(n.value) == ["self"]
                    )
        _value_attributes.difference_update(IR_PLUMBING)
    return _value_attributes


# what str.splitlines() (and so linecache, which inspect reads a kernel's source from) takes for
# the end of a line, and Python's own reading of a file does not
HIDDEN_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def hidden_line_break(text: str) -> str:
    """Why text cannot stand in the kernel module: a character that ends a line for inspect
    but not for Python, so the source that triton reads would not be the one checked; or ""."""
    found = next((c for c in text if c in HIDDEN_LINE_BREAKS), None)
    if found is None:
        return ""
    return (
        f"holds {found!r}, which ends a line where triton reads the kernel's source and not "
        "where Python reads it"
    )


_interpreter_names: set[str] = set()


def interpreter_names() -> set[str]:
    """The names triton's interpreter puts into a kernel's module when it rewrites a kernel
    (its own module's globals: numpy, inspect, ...): defined where the kernel runs on the CPU,
    though the kernel module never defines them."""
    if not _interpreter_names:
        from triton.runtime import interpreter

        _interpreter_names.update(vars(interpreter))
    return _interpreter_names


def importable(path: str) -> bool:
    """Whether `import path` or `from parent import name` finds it: a module of triton's or
    math, imported (trusted code), or a name in one."""
    import importlib

    with contextlib.suppress(Exception):
        importlib.import_module(path)
        return True
    parent, _, name = path.rpartition(".")
    with contextlib.suppress(Exception):
        return hasattr(importlib.import_module(parent), name)
    return False
