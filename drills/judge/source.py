"""What the judge learns from a learner's file by reading it, never running it.

The learner's file runs in a runner process that its own code can tamper with, so the judge
(trusted) never imports it. `read()` parses it (drills.judge.syntax); `LearnerSource` answers
from the text alone:

- kernel_module(): the module of kernels the judge runs and compiles (drills.judge.kernel_module);
- autotune_configs(): a kernel's autotune list (drills.judge.source_configs);
- escapes(): what the host code does outside a kernel, as feedback (drills.judge.host_reading);
- chained_comparisons(): comparisons in kernels that do not compute what they look like;
- raises_not_started(), defines_function(), autotuned(), jit_function_names().
"""

import ast
import os
import re
from functools import cached_property
from pathlib import Path

from drills.judge.host_reading import HostCheck
from drills.judge.kernel_module import KernelModule
from drills.judge.names import AUTOTUNE_DECORATORS, name_chain
from drills.judge.reading import Finding, SourceText, is_main_block
from drills.judge.source_configs import (
    autotune_argument,
    autotune_call_wrapping,
    autotune_configs,
)
from drills.judge.syntax import parse


def read(path: Path, shown_as: str) -> "LearnerSource":
    """Parse a learner's file; syntax.SourceError says why it cannot be read."""
    text, tree = parse(path, shown_as)
    return LearnerSource(shown_as, text, tree)


# ---------------------------------------------------------------------------------------------
# The learner's source
# ---------------------------------------------------------------------------------------------


class LearnerSource(SourceText):
    def __init__(self, shown_as: str, text: str, tree: ast.Module):
        super().__init__(shown_as, text, tree)
        self._kernel_module: tuple[str, list[Finding]] | None = None

    def autotuned(self, name: str) -> bool:
        """Whether the last top-level @triton.jit function `name` is under @triton.autotune, as
        its decorator or as a call after it that wraps it (X = triton.autotune(...)(name))."""
        kernels = [
            (i, s) for i, s in enumerate(self.tree.body) if self.is_jit(s) and s.name == name
        ]
        if not kernels:
            return False
        index, kernel = kernels[-1]
        return any(
            self.names_autotune(d.func if isinstance(d, ast.Call) else d)
            for d in kernel.decorator_list
        ) or any(
            autotune_call_wrapping(stmt, name, self.names_autotune)
            for stmt in self.tree.body[index + 1 :]
        )

    def names_autotune(self, node: ast.expr) -> bool:
        return any(".".join(path) in AUTOTUNE_DECORATORS for path in self.resolve(node))

    def autotune_configs(self, name: str, on_a_gpu: bool = False) -> list | None:
        """The triton.Config list of `name`'s @triton.autotune, as the judge reads it from the
        source (drills.judge.source_configs), here or, with on_a_gpu, as a GPU machine's
        environment (no TRITON_INTERPRET) makes it; None when it cannot be read without
        running code."""
        if not self.autotuned(name):
            return None
        environ = {k: v for k, v in os.environ.items() if not on_a_gpu or k != "TRITON_INTERPRET"}
        return autotune_configs(self.tree, name, environ)

    def autotune_key_strays(self, name: str) -> list[str]:
        """The names in `name`'s autotune key that are not arguments of the kernel: triton 3.9
        refuses them; older versions drop them, and the kernel never tunes again."""
        kernel = self.top_level_def(name)
        key = autotune_argument(self.tree, name, "key") if self.autotuned(name) else None
        if kernel is None or not isinstance(key, (list, tuple)):
            return []
        arguments = {a.arg for a in kernel.args.posonlyargs + kernel.args.args}
        return [k for k in key if isinstance(k, str) and k not in arguments]

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

    def chained_comparisons(self, chains_compile: bool) -> list[Finding]:
        """Chained comparisons in the kernels, as feedback: `a < M & b < N`, which Python reads
        as a < (M & b) < N, and, where this triton has no chains (before 3.9), any other."""
        found = []
        for kernel in self.tree.body:
            if not self.is_jit(kernel):
                continue
            for node in ast.walk(kernel):
                if isinstance(node, ast.Compare) and len(node.ops) > 1:
                    what = precedence_mistake(node) or (not chains_compile and chain_refused(node))
                    if what:
                        found.append(Finding(node.lineno, what))
        return found

    def in_file_lines(self, message: str) -> str:
        """A compile error's positions, which triton counts from each kernel's `def` line
        ("at 3:37:"), as lines of the learner's file."""

        def in_file(found: re.Match) -> str:
            kernel = self.top_level_def(found["kernel"])
            if kernel is None:
                return found[0]
            line = kernel.lineno + int(found["line"]) - 1
            return f"at {self.shown_as}, line {line}, column {found['column']}:\n{found['def']}"

        return COMPILE_POSITION.sub(in_file, message)

    def defines_function(self, name: str) -> bool:
        return name in self.top_level

    def takes_positional(self, name: str, count: int) -> bool:
        """Whether the file's last top-level def of `name` can be called with `count`
        positional arguments."""
        fn = self.top_level_def(name)
        if fn is None:
            return False
        given = fn.args.posonlyargs + fn.args.args
        required = len(given) - len(fn.args.defaults)
        return required <= count and (count <= len(given) or fn.args.vararg is not None)

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
        """The module of kernels the judge runs and compiles. A module-level `if` may choose by
        the environment: it is decided once, as on a GPU machine (no TRITON_INTERPRET), for the
        interpreter's run and the compile alike, so the kernels a run on the CPU counts are
        the ones a GPU would compile."""
        if self._kernel_module is None:
            environ = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
            self._kernel_module = KernelModule(self, environ).build()
        return self._kernel_module


# triton's position in a compile error: the line counted from the kernel's `def` (line 1), and
# the source shown from that `def` on
COMPILE_POSITION = re.compile(
    r"\bat (?P<line>\d+):(?P<column>\d+):\n(?P<def>def (?P<kernel>\w+)\()"
)


# ---------------------------------------------------------------------------------------------
# Chained comparisons in kernels
# ---------------------------------------------------------------------------------------------

SYMBOLS = {
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}


def precedence_mistake(chain: ast.Compare) -> str | None:
    """`rows < M & cols < N`: & binds tighter than <, so Python reads a chain of two
    comparisons around `M & cols`, where two comparisons joined by & were meant."""
    middle = chain.comparators[0]
    if len(chain.ops) != 2 or not (
        isinstance(middle, ast.BinOp) and type(middle.op) in (ast.BitAnd, ast.BitOr, ast.BitXor)
    ):
        return None
    first, second = (SYMBOLS.get(type(op), "?") for op in chain.ops)
    left, right = ast.unparse(chain.left), ast.unparse(chain.comparators[1])
    meant = ast.BinOp(
        ast.Compare(chain.left, chain.ops[:1], [middle.left]),
        middle.op,
        ast.Compare(middle.right, chain.ops[1:], chain.comparators[1:]),
    )
    return (
        f"`{ast.unparse(chain)}` reads as `{left} {first} ({ast.unparse(middle)}) {second} "
        f"{right}`: in Python, {SYMBOLS[type(middle.op)]} binds tighter than a comparison. "
        f"Put each comparison in parentheses: `{ast.unparse(meant)}`"
    )


def chain_refused(chain: ast.Compare) -> str:
    """A chained comparison on a triton before 3.9, which has none."""
    sides = [chain.left, *chain.comparators]
    pairs = [
        ast.Compare(left, [op], [right])
        for left, op, right in zip(sides[:-1], chain.ops, sides[1:], strict=True)
    ]
    return (
        f"`{ast.unparse(chain)}` is a chained comparison, which kernels have from triton 3.9 "
        "on: before it, the interpreter keeps only the last comparison (it counts a block as "
        "true) and a GPU compiler refuses it. Write "
        f"`{' & '.join(f'({ast.unparse(p)})' for p in pairs)}`"
    )
