"""The ordered list of drills: the only place drills are listed, and the curriculum's order."""

import ast
from dataclasses import dataclass
from pathlib import Path

from drills import spec

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Drill:
    id: str  # short name used on the command line: "t1"
    slug: str  # file stem shared by mine/, solutions/, tests/ and content/: "t1_add"
    title: str
    teaches: str

    @property
    def stub(self) -> Path:
        return ROOT / "drills" / "stubs" / f"{self.slug}.py"

    @property
    def spec(self) -> spec.Spec:
        return spec.of(self.slug)

    @property
    def test_file(self) -> Path:
        return ROOT / "tests" / f"test_{self.slug}.py"

    @property
    def lesson(self) -> Path:
        return ROOT / "content" / f"{self.slug}.md"

    @property
    def hints(self) -> Path:
        """The drill's hints, which `make hint` shows one at a time (not on the lesson's page)."""
        return ROOT / "content" / "hints" / f"{self.slug}.md"

    def in_language(self, page: Path, language: str) -> Path:
        """A page of the drill's (its lesson, its hints) in `language` ("en", "zh"), where
        that edition has it, else the English page."""
        if language == "en":
            return page
        edition = ROOT / "content" / language / page.relative_to(ROOT / "content")
        return edition if edition.is_file() else page

    def source(self, impl: str) -> Path:
        """The file graded for `impl`: "mine", "solutions", or a folder holding `<slug>.py`."""
        folder = ROOT / impl if impl in ("mine", "solutions") else Path(impl)
        return folder / f"{self.slug}.py"


DRILLS = [
    Drill("t1", "t1_add", "Vector add", "programs, the grid, offsets and masks"),
    Drill("t2", "t2_softmax", "Row-wise softmax", "reductions, -inf padding, fusion"),
    Drill("t3", "t3_matmul", "Tiled matmul", "a 2-D grid of tiles, the K loop, fp32 acc"),
    Drill("t4", "t4_matmul", "Grouped matmul", "grouped order, strides, autotune, epilogue"),
]


class NotFound(KeyError):
    """A name on the command line that names no drill, or no check of one: what to say, in
    English (str()) and in Chinese (said("zh"))."""

    def __init__(self, english: str, chinese: str):
        super().__init__(english)
        self.chinese = chinese

    def __str__(self) -> str:
        return self.args[0]

    def said(self, language: str) -> str:
        return self.chinese if language == "zh" else self.args[0]


def find(name: str) -> Drill:
    """Look a drill up by id ("t1") or slug ("t1_add")."""
    for drill in DRILLS:
        if name in (drill.id, drill.slug):
            return drill
    known = ", ".join(d.id for d in DRILLS)
    raise NotFound(
        f"no drill named {name!r}; the drills are {known}",
        f"没有名为 {name!r} 的练习；练习有 {known}",
    )


def source_file(impl: str, slug: str) -> Path:
    """The learner's file of drill `slug` for `impl` (mine, solutions, a folder or a .py)."""
    if impl.endswith(".py"):
        return Path(impl).resolve()
    return find(slug).source(impl)


def suite_code(drill: Drill) -> dict[str, str]:
    """The code of each check of the drill's spec, by id: the suite's test functions marked
    `@check("id")` for it, decorators and all, read from the suite's text (no torch needed)."""
    source = drill.test_file.read_text()
    lines = source.splitlines()
    code: dict[str, list[str]] = {c.id: [] for c in drill.spec.checks}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and getattr(decorator.func, "id", None) == "check"
                and decorator.args
                and isinstance(decorator.args[0], ast.Constant)
            ):
                first = node.decorator_list[0].lineno - 1
                code[drill.spec.check(decorator.args[0].value).id].append(
                    "\n".join(lines[first : node.end_lineno])
                )
    return {id: "\n\n\n".join(functions) for id, functions in code.items()}
