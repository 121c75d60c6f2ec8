"""The repository's controls, as edits of the references: positive controls (tests/positives/<slug>/
NAME.py, right kernels written differently), negative controls (tests/negatives/<slug>/NAME.py,
wrong ones) and attacks (tests/attacks/<slug>/NAME.py).

A control that declares EDITS, a list of (old, new) pairs, stands for its drill's reference in
solutions/ with each `old` (found there exactly once) replaced by `new`: its one idea, or its
mistake, reads as a diff of a line or two, and follows the reference when the reference changes.
One that also declares EDITS_OF, a path from the repository's root, stands for that file edited
instead (another correct design: the persistent reference, a positive, itself perhaps edits). One
that is no small edit of any of them is a whole file, graded as it is.
"""

import ast
from pathlib import Path

from drills import catalog

NEGATIVES = catalog.ROOT / "tests" / "negatives"
POSITIVES = catalog.ROOT / "tests" / "positives"


class EditDoesNotApply(ValueError):
    """An edit whose `old` text the reference no longer holds exactly once."""


def declared(path: Path, name: str):
    """The literal a control assigns to `name`, or None."""
    for node in ast.parse(path.read_text()).body:
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == name
        ):
            return ast.literal_eval(node.value)
    return None


def edits_of(path: Path) -> list[tuple[str, str]] | None:
    """The control's EDITS, or None for a whole file."""
    edits = declared(path, "EDITS")
    return None if edits is None else [tuple(pair) for pair in edits]


def mutated(reference: str, edits: list[tuple[str, str]], name: str = "") -> str:
    """`reference` with each edit made in turn; EditDoesNotApply names the first that cannot
    be, and why."""
    text = reference
    for number, (old, new) in enumerate(edits, start=1):
        found = text.count(old)
        if found != 1:
            where = "is not in" if found == 0 else f"is {found} times in"
            raise EditDoesNotApply(
                f"{name} edit {number}: {old.strip()[:80]!r} {where} the reference: write the "
                "edit again against solutions/ as it is now"
            )
        text = text.replace(old, new)
    return text


def source_text(path: Path) -> str:
    """The kernel file the control stands for."""
    edits = edits_of(path)
    if edits is None:
        return path.read_text()
    base = declared(path, "EDITS_OF")
    drill = catalog.find(path.parent.name)
    reference = source_text(catalog.ROOT / base) if base else drill.source("solutions").read_text()
    return mutated(reference, edits, f"{path.parent.name}/{path.name}")


def standalone(path: Path, folder: Path) -> Path:
    """The control as a file of its own, `folder`/<name>/<slug>.py, as a learner's would be:
    graded like one, with line numbers that are the reference's after the edits."""
    target = folder / path.stem / f"{path.parent.name}.py"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source_text(path))
    return target
