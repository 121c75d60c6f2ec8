"""The autotune configs of a kernel, read from the learner's source without running it.

`@triton.autotune(configs=CONFIGS, ...)` is host code: the list may come from a comprehension,
from `os.environ` (one small config on the interpreter), from a module-level `if`, or from a
function like tutorial 03's `get_autotune_config()`. The judge evaluates that expression with
a small interpreter of its own, over the module's top-level statements up to the kernel's
definition: literals, names, comprehensions, conditions, arithmetic, `triton.Config(...)`,
`os.environ.get` / `os.getenv` (the judge's environment, which the runner shares, or that
environment as a GPU machine has it: without TRITON_INTERPRET), a few
builtins, `itertools.product`, and calls of the file's own functions whose bodies are made of
assignments, `if` and `return`. Nothing of the learner's runs. Anything else makes the list
unreadable (None): the judge then takes the runner's word for it.
"""

import ast
import builtins
import itertools
import os
from collections.abc import Callable, Mapping

import triton

from drills.judge.names import AUTOTUNE_DECORATORS

MAX_WORK = 200_000  # nodes evaluated, at most
MAX_CALL_DEPTH = 8
MAX_ITEMS = 10_000  # in any list made


class Unreadable(Exception):
    """The expression uses something this reader does not evaluate."""


class Module:
    """A module a top-level import binds, known by its dotted name."""

    def __init__(self, name: str):
        self.name = name


class Function:
    """A top-level function of the file: evaluated when called, never run."""

    def __init__(self, node: ast.FunctionDef):
        self.node = node


UNKNOWN = object()  # a name bound by a statement the reader does not evaluate
IMPORTABLE = {"os", "triton", "itertools", "triton.language"}
BUILTINS = {
    name: getattr(builtins, name)
    for name in "range len list tuple dict zip enumerate min max sorted reversed int str bool "
    "abs float set any all".split()
}


def product(*iterables):
    """itertools.product, refused past MAX_ITEMS combinations (it would be made whole)."""
    pools = [list(i) for i in iterables]
    size = 1
    for pool in pools:
        size *= len(pool)
    if size > MAX_ITEMS:
        raise Unreadable("a product too large")
    return list(itertools.product(*pools))


CALLS = {
    "triton.Config": triton.Config,
    "itertools.product": product,
}
ENVIRONMENT_CALLS = ("os.getenv", "os.environ.get")
STR_METHODS = {"lower", "upper", "strip", "startswith", "endswith", "split"}
DICT_METHODS = {"get", "items", "keys", "values"}
BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b if abs(b) <= 64 else _refuse("a large power"),
}
COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
}
PLAIN = (int, float, str, bool, type(None), tuple, list, dict, triton.Config)


def _refuse(what: str):
    raise Unreadable(what)


def autotune_configs(
    tree: ast.Module, kernel: str, environ: Mapping[str, str] = os.environ
) -> list[triton.Config] | None:
    """The configs of the last top-level `kernel` under @triton.autotune, as the module
    computes them in `environ`, or None when they cannot be read."""
    value = autotune_argument(tree, kernel, "configs", environ)
    if value is None:
        return None
    configs = list(value)
    return configs if all(isinstance(c, triton.Config) for c in configs) else None


def autotune_argument(
    tree: ast.Module, kernel: str, argument: str, environ: Mapping[str, str] = os.environ
):
    """One argument of the autotune over the last top-level `kernel` ("configs", "key"), as
    the module computes it in `environ`, or None when it cannot be read. The autotune is the
    kernel's decorator, or a call after it that wraps it (X = triton.autotune(...)(kernel), in
    a class body too)."""
    defs = [
        (i, s)
        for i, s in enumerate(tree.body)
        if isinstance(s, ast.FunctionDef) and s.name == kernel
    ]
    if not defs:
        return None
    index, fn = defs[-1]
    reader = Reader(environ)
    try:
        for stmt in tree.body[:index]:
            reader.statement(stmt, reader.globals)
        call = next(
            (
                d
                for d in fn.decorator_list
                if isinstance(d, ast.Call) and reader.names_autotune(d.func)
            ),
            None,
        )
        for stmt in tree.body[index + 1 :]:
            if call is not None:
                break
            call = autotune_call_wrapping(stmt, kernel, reader.names_autotune)
            reader.statement(stmt, reader.globals)
        if call is None:
            return None
        given = next((k.value for k in call.keywords if k.arg == argument), None)
        position = AUTOTUNE_POSITIONS[argument]
        if given is None and len(call.args) > position:
            given = call.args[position]
        return None if given is None else reader.expression(given, reader.globals)
    except (Unreadable, ArithmeticError, TypeError, ValueError, KeyError, IndexError):
        return None


def autotune_call_wrapping(
    stmt: ast.stmt, kernel: str, names_autotune: Callable[[ast.expr], bool]
) -> ast.Call | None:
    """The `triton.autotune(...)` call in `stmt` whose result is applied to `kernel`, directly
    or through other wrappers (triton.autotune(...)(triton.heuristics(...)(kernel))), or None."""
    for node in ast.walk(stmt):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Call)
            and names_autotune(node.func.func)
            and node.args
            and wraps(node.args[0], kernel)
        ):
            return node.func
    return None


def wraps(node: ast.expr, kernel: str) -> bool:
    """Whether `node` is `kernel`, or a call that wraps it: f(kernel), g(...)(kernel)."""
    while isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    return isinstance(node, ast.Name) and node.id == kernel


# where triton.autotune(configs, key, ...) takes each argument given without its name
AUTOTUNE_POSITIONS = {"configs": 0, "key": 1}


def decided(test: ast.expr, before: list[ast.stmt], environ: Mapping[str, str]) -> bool | None:
    """Whether a module-level `if` test holds in `environ`, after the statements `before` it;
    None when it cannot be read."""
    reader = Reader(environ)
    try:
        for stmt in before:
            reader.statement(stmt, reader.globals)
        return bool(reader.expression(test, reader.globals))
    except (Unreadable, ArithmeticError, TypeError, ValueError, KeyError, IndexError):
        return None


class Return(Exception):
    def __init__(self, value):
        self.value = value


class Reader:
    def __init__(self, environ: Mapping[str, str]):
        self.environ = environ
        self.globals: dict = {}
        self.work = 0
        self.depth = 0

    def count(self) -> None:
        self.work += 1
        if self.work > MAX_WORK:
            raise Unreadable("too much to evaluate")

    # -- statements ------------------------------------------------------------------------

    def statement(self, stmt: ast.stmt, scope: dict) -> None:
        self.count()
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name in IMPORTABLE:
                    bound = alias.asname or alias.name.split(".")[0]
                    scope[bound] = Module(alias.name if alias.asname else bound)
                else:
                    scope[alias.asname or alias.name.split(".")[0]] = UNKNOWN
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                dotted = f"{stmt.module}.{alias.name}"
                known = dotted in CALLS or dotted in ENVIRONMENT_CALLS or dotted in IMPORTABLE
                scope[alias.asname or alias.name] = Module(dotted) if known else UNKNOWN
        elif isinstance(stmt, ast.Assign) and all(self.simple(t) for t in stmt.targets):
            try:
                value = self.expression(stmt.value, scope)
            except Unreadable:
                value = UNKNOWN
            for target in stmt.targets:
                self.assign(target, value, scope)
        elif isinstance(stmt, ast.If):
            try:
                branch = stmt.body if self.expression(stmt.test, scope) else stmt.orelse
            except Unreadable:
                for name in changed_names(stmt):
                    scope[name] = UNKNOWN
                return
            for inner in branch:
                self.statement(inner, scope)
        elif isinstance(stmt, ast.For):
            try:
                self.loop(stmt, scope)
            except Unreadable:
                for name in changed_names(stmt):
                    scope[name] = UNKNOWN
        elif isinstance(stmt, ast.Expr) and self.list_grown(stmt.value, scope):
            pass
        elif isinstance(stmt, ast.FunctionDef):
            scope[stmt.name] = UNKNOWN if stmt.decorator_list else Function(stmt)
        elif isinstance(stmt, ast.Return):
            raise Return(self.expression(stmt.value, scope) if stmt.value else None)
        elif isinstance(stmt, ast.Pass) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
        ):
            pass  # a docstring, or nothing
        else:
            for name in changed_names(stmt):
                scope[name] = UNKNOWN

    def loop(self, stmt: ast.For, scope: dict) -> None:
        """A `for` over values the reader knows, whose body it can follow (CONFIGS = []; for
        ...: CONFIGS.append(triton.Config(...)))."""
        if not self.simple(stmt.target) or stmt.orelse:
            raise Unreadable("a for loop with an else, or an unpacking into attributes")
        body = (ast.Assign, ast.If, ast.Expr, ast.Pass, ast.For)
        jumps = any(isinstance(node, (ast.Break, ast.Continue)) for node in ast.walk(stmt))
        if jumps or not all(isinstance(inner, body) for inner in stmt.body):
            raise Unreadable("a loop body with break, continue or other statements")
        for item in self.expression(stmt.iter, scope):
            self.assign(stmt.target, item, scope)
            for inner in stmt.body:
                self.statement(inner, scope)

    def list_grown(self, call: ast.expr, scope: dict) -> bool:
        """Whether `call` is X.append(value) or X.extend(values) on a list the reader holds, and
        if so does it."""
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr in ("append", "extend")
            and isinstance(call.func.value, ast.Name)
            and len(call.args) == 1
            and not call.keywords
        ):
            return False
        try:
            grown = self.lookup(call.func.value.id, scope)
            if not isinstance(grown, list):
                return False
            value = self.expression(call.args[0], scope)
        except Unreadable:
            return False
        added = [value] if call.func.attr == "append" else list(value)
        if len(grown) + len(added) > MAX_ITEMS:
            raise Unreadable("a list too long")
        grown.extend(added)
        return True

    @staticmethod
    def simple(target: ast.expr) -> bool:
        return isinstance(target, ast.Name) or (
            isinstance(target, (ast.Tuple, ast.List))
            and all(isinstance(e, ast.Name) for e in target.elts)
        )

    def assign(self, target: ast.expr, value, scope: dict) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
            return
        names = [e.id for e in target.elts]
        if value is UNKNOWN:
            values = [UNKNOWN] * len(names)
        else:
            values = list(value)
            if len(values) != len(names):
                raise Unreadable("unpacking of the wrong length")
        for name, item in zip(names, values, strict=True):
            scope[name] = item

    def call_function(self, fn: Function, args: list, kwargs: dict):
        if self.depth >= MAX_CALL_DEPTH:
            raise Unreadable("calls nested too deeply")
        parameters = fn.node.args
        if parameters.vararg or parameters.kwarg or parameters.kwonlyargs:
            raise Unreadable("a function with *args, **kwargs or keyword-only parameters")
        names = [a.arg for a in parameters.args]
        defaults = parameters.defaults
        local: dict = {}
        for name, default in zip(names[len(names) - len(defaults) :], defaults, strict=True):
            local[name] = self.expression(default, self.globals)
        local |= dict(zip(names, args, strict=False)) | kwargs
        if set(local) != set(names):
            raise Unreadable("a call that does not match its function")
        self.depth += 1
        try:
            for stmt in fn.node.body:
                if not isinstance(
                    stmt, (ast.Assign, ast.If, ast.Return, ast.Expr, ast.Pass, ast.For)
                ):
                    raise Unreadable(f"a function body with {type(stmt).__name__}")
                self.statement(stmt, local)
        except Return as done:
            return done.value
        finally:
            self.depth -= 1
        return None

    # -- expressions ------------------------------------------------------------------------

    def lookup(self, name: str, scope: dict):
        for table in (scope, self.globals):
            if name in table:
                if table[name] is UNKNOWN:
                    raise Unreadable(f"{name} is not readable")
                return table[name]
        if name in BUILTINS:
            return BUILTINS[name]
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        raise Unreadable(f"{name} is not defined")

    def dotted(self, node: ast.expr, scope: dict) -> str | None:
        """ "os.environ.get" for a chain rooted at an imported module, else None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = scope.get(node.id, self.globals.get(node.id))
        if not isinstance(root, Module):
            return None
        return ".".join([root.name, *reversed(parts)])

    def names_autotune(self, node: ast.expr) -> bool:
        return self.dotted(node, self.globals) in AUTOTUNE_DECORATORS

    def expression(self, node: ast.expr, scope: dict):
        self.count()
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.lookup(node.id, scope)
        if isinstance(node, (ast.List, ast.Tuple)):
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    items += list(self.expression(element.value, scope))
                else:
                    items.append(self.expression(element, scope))
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise Unreadable("a ** in a dict")
            return {
                self.expression(k, scope): self.expression(v, scope)
                for k, v in zip(node.keys, node.values, strict=True)
            }
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            return self.comprehension(node, scope)
        if isinstance(node, ast.IfExp):
            chosen = node.body if self.expression(node.test, scope) else node.orelse
            return self.expression(chosen, scope)
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self.expression(operand, scope)
                if isinstance(node.op, ast.And) != bool(value):
                    return value
            return value
        if isinstance(node, ast.UnaryOp):
            operand = self.expression(node.operand, scope)
            ops = {ast.Not: lambda v: not v, ast.USub: lambda v: -v, ast.UAdd: lambda v: +v}
            if type(node.op) not in ops:
                raise Unreadable("a unary operator")
            return ops[type(node.op)](operand)
        if isinstance(node, ast.BinOp):
            if type(node.op) not in BINARY:
                raise Unreadable("a binary operator")
            return self.plain(
                BINARY[type(node.op)](
                    self.expression(node.left, scope), self.expression(node.right, scope)
                )
            )
        if isinstance(node, ast.Compare):
            left = self.expression(node.left, scope)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.expression(right_node, scope)
                if not COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Subscript):
            base = self.expression(node.value, scope)
            if isinstance(base, Module) and base.name == "os.environ":
                return self.environ[self.expression(node.slice, scope)]
            if not isinstance(base, (list, tuple, dict, str)):
                raise Unreadable("a subscript of something else")
            if isinstance(node.slice, ast.Slice):
                bounds = [
                    self.expression(b, scope) if b else None
                    for b in (node.slice.lower, node.slice.upper, node.slice.step)
                ]
                return base[slice(*bounds)]
            return base[self.expression(node.slice, scope)]
        if isinstance(node, ast.Attribute):
            dotted = self.dotted(node, scope)
            if dotted == "os.environ":
                return Module("os.environ")
            raise Unreadable(f"the attribute {node.attr}")
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        raise Unreadable(type(node).__name__)

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, scope: dict) -> list:
        results: list = []

        def loop(generators: list[ast.comprehension], local: dict) -> None:
            if not generators:
                results.append(self.expression(node.elt, local))
                if len(results) > MAX_ITEMS:
                    raise Unreadable("a list too long")
                return
            first, rest = generators[0], generators[1:]
            if first.is_async or not self.simple(first.target):
                raise Unreadable("a comprehension target")
            for item in self.expression(first.iter, local):
                self.count()
                inner = dict(local)
                self.assign(first.target, item, inner)
                if all(self.expression(test, inner) for test in first.ifs):
                    loop(rest, inner)

        loop(node.generators, dict(scope))
        return results

    def call(self, node: ast.Call, scope: dict):
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise Unreadable("a call with *args")
        if any(k.arg is None for k in node.keywords):
            raise Unreadable("a call with **kwargs")
        args = [self.expression(a, scope) for a in node.args]
        kwargs = {k.arg: self.expression(k.value, scope) for k in node.keywords}
        dotted = self.dotted(node.func, scope)
        if dotted in ENVIRONMENT_CALLS:
            return self.plain(self.environ.get(*args, **kwargs))
        if dotted in CALLS:
            if dotted == "triton.Config" and kwargs.get("pre_hook") is not None:
                raise Unreadable("a config with a pre_hook")
            return self.plain(CALLS[dotted](*args, **kwargs))
        if isinstance(node.func, ast.Name):
            fn = self.lookup(node.func.id, scope)
            if isinstance(fn, Function):
                return self.call_function(fn, args, kwargs)
            if fn in BUILTINS.values():
                return self.plain(fn(*args, **kwargs))
        if isinstance(node.func, ast.Attribute):
            base = self.expression(node.func.value, scope)
            method = node.func.attr
            if isinstance(base, str) and method in STR_METHODS:
                return getattr(base, method)(*args, **kwargs)
            if isinstance(base, dict) and method in DICT_METHODS:
                return self.plain(getattr(base, method)(*args, **kwargs))
        raise Unreadable("a call")

    @staticmethod
    def plain(value):
        """Iterators become lists, so that a value can be used twice; only plain values."""
        if isinstance(value, range) and len(value) > MAX_ITEMS:
            raise Unreadable("a range too long")
        views = ("dict_items", "dict_keys", "dict_values")
        if isinstance(value, (range, zip, enumerate, map, filter, reversed)) or (
            type(value).__name__ in views
        ):
            value = list(value)
        if isinstance(value, (list, tuple)) and len(value) > MAX_ITEMS:
            raise Unreadable("a list too long")
        if not isinstance(value, PLAIN):
            raise Unreadable(f"a value of type {type(value).__name__}")
        return value


# the methods by which a statement changes a list, dict or set in place
CHANGING_METHODS = {
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
    "update", "setdefault", "popitem", "add", "discard",
}  # fmt: skip


def changed_names(stmt: ast.stmt) -> set[str]:
    """The names a statement may bind, or whose value it may change in place: CONFIGS in
    `CONFIGS.append(...)`, `CONFIGS[0] = ...`, `del CONFIGS[0]`, in a loop's body too."""
    names = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(
            node.ctx, (ast.Store, ast.Del)
        ):
            names.add(_held_by(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CHANGING_METHODS
        ):
            names.add(_held_by(node.func.value))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names - {""}


def _held_by(node: ast.expr) -> str:
    """The name whose value holds what `node` reaches (CONFIGS for CONFIGS[0].kwargs), or ""."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""
