"""What the judge reads in a learner's file that every reading of it shares: the file's text and
syntax tree, the names its imports bind, which functions are @triton.jit, and the findings a
reading reports. drills.judge.source (the whole reading), host_reading (what host code does)
and kernel_module (the kernels the judge runs) build on it; it imports none of them."""

import ast
from dataclasses import dataclass
from functools import cached_property

from drills.judge.names import JIT_DECORATORS, import_bindings, name_chain


@dataclass(frozen=True)
class Finding:
    line: int
    what: str
    computes: bool = False  # host code computing values (torch arithmetic, numpy, ...)

    def __str__(self) -> str:
        return f"line {self.line}: {self.what}"


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


class SourceText:
    """A learner's file as read: its name in messages, its text, its tree, and what its
    imports make of a name."""

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

    def jit_decorator(self, decorator: ast.expr) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return any(".".join(path) in JIT_DECORATORS for path in self.resolve(target))
