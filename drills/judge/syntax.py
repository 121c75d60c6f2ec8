"""Whether a learner's file can be read as Python at all, with the message that says why not.

Torch-free, so that the grader can answer a file that cannot be read (a syntax error, a missing
file) at once, with the words the judge would use, without starting a judge.
"""

import ast
import tokenize
from pathlib import Path

# The judge's checks recurse through the syntax tree; no kernel file comes near this depth.
MAX_DEPTH = 200


class SourceError(Exception):
    """The file cannot be read as Python; str() is the message for the learner, `line` the
    line it points at, where it points at one."""

    def __init__(self, message: str, line: int | None = None):
        super().__init__(message)
        self.line = line


def parse(path: Path, shown_as: str) -> tuple[str, ast.Module]:
    """The file's text and syntax tree; SourceError says why it cannot be read."""
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
            f"    {(e.text or '').rstrip()}",
            e.lineno,
        ) from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise SourceError(f"{shown_as} cannot be read as Python: {e}") from None
    if depth(tree) > MAX_DEPTH:
        raise SourceError(f"{shown_as} nests expressions too deeply to be checked")
    return text, tree


def depth(tree: ast.AST) -> int:
    deepest, todo = 0, [(tree, 1)]
    while todo:
        node, level = todo.pop()
        deepest = max(deepest, level)
        todo += [(child, level + 1) for child in ast.iter_child_nodes(node)]
    return deepest
