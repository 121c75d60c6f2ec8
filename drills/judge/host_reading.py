"""escapes(): what the judge's reading of a learner's host code points out.

Host code is everything outside @triton.jit bodies and outside an `if __name__ == "__main__":`
block. Imports, names and attribute chains are checked against the allowlists of
drills.judge.names: torch arithmetic, numpy, files, frames, processes. This is feedback, said
beside a wrong result; it never decides a point, since the judge grades what its own run of the
kernels wrote.
"""

import ast

from drills.judge.names import (
    ESCAPE_BUILTINS,
    FUNCTION_MODULES,
    INTERNAL_ATTRIBUTES,
    READABLE_DUNDERS,
    TENSOR_COMPUTE,
    UNDERSCORE_OK,
    WRITABLE_DUNDERS,
    host_chain_problem,
    import_bindings,
    import_problems,
    is_module,
    name_chain,
)
from drills.judge.reading import Finding, SourceText

# libraries whose use in host code computes values a learner may mean the kernel to compute
NUMERIC_MODULES = frozenset({"torch", "numpy", "scipy", "cupy", "jax", "numba", "pandas"})


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
# escapes(): the host-code check
# ---------------------------------------------------------------------------------------------


class HostCheck(ast.NodeVisitor):
    """Visits host code (the caller skips main blocks; this skips kernel bodies)."""

    def __init__(self, source: SourceText):
        self.source = source
        self.findings: list[Finding] = []
        self.scopes: list[set[str]] = []  # the local names of the enclosing functions
        self.bases: set[int] = set()  # nodes that are the .value of an attribute
        self.called: set[int] = set()  # nodes that are the .func of a call
        self.compared: set[int] = set()  # `triton is None` is no use of the module
        # `math = tl.math` at module level (Inductor's helpers): a name for one of
        # triton.language's modules of functions, which the kernels' reading takes as an import
        self.kernel_module_names = {
            id(stmt.value)
            for stmt in source.tree.body
            if isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
        }
        self.set_names = set_names(source.tree)

    def flag(self, node: ast.AST, what: str, computes: bool = False) -> None:
        self.findings.append(Finding(node.lineno, what, computes))

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
        modules = (
            [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        )
        computes = any((m or "").split(".")[0] in NUMERIC_MODULES for m in modules)
        for problem in import_problems(node):
            self.flag(node, problem, computes)

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
            self.flag(
                node, f"calls .{name}() on a tensor (torch computes outside the kernel)", True
            )
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
            named_for_kernels = id(node) in self.kernel_module_names and dotted in FUNCTION_MODULES
            passed = id(node) not in self.compared and not named_for_kernels
            if problem is None and passed and is_module(path):
                problem = f"passes the module {dotted} around as a value"
            if problem:
                computes = path[0] in NUMERIC_MODULES and not problem.startswith("reads")
                self.flag(node, problem, computes)
