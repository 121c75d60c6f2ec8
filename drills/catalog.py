"""The ordered list of drills: the only place drills are listed, and the curriculum's order."""

import ast
from dataclasses import dataclass
from pathlib import Path

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


def find(name: str) -> Drill:
    """Look a drill up by id ("t1") or slug ("t1_add")."""
    for drill in DRILLS:
        if name in (drill.id, drill.slug):
            return drill
    known = ", ".join(d.id for d in DRILLS)
    raise KeyError(f"no drill named {name!r}; the drills are {known}")


def source_file(impl: str, slug: str) -> Path:
    """The learner's file of drill `slug` for `impl` (mine, solutions, a folder or a .py)."""
    if impl.endswith(".py"):
        return Path(impl).resolve()
    return find(slug).source(impl)


@dataclass(frozen=True)
class SuiteCheck:
    name: str
    points: int
    code: str  # its test function, decorators and all


def suite_checks(drill: Drill) -> list[SuiteCheck]:
    """The checks of the drill's suite in file order, read from its text (no torch needed):
    each `@check("name", points=N)` test function, and the later ones of the same name (a check
    whose cases need a test of their own, a run twice) joined to the first."""
    source = drill.test_file.read_text()
    lines = source.splitlines()
    checks: dict[str, SuiteCheck] = {}
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
                name = decorator.args[0].value
                points = next(k.value.value for k in decorator.keywords if k.arg == "points")
                code = "\n".join(lines[node.decorator_list[0].lineno - 1 : node.end_lineno])
                if name in checks:
                    if checks[name].points != points:
                        raise ValueError(f"{drill.test_file.name}: {name!r} has two point values")
                    code = f"{checks[name].code}\n\n\n{code}"
                checks[name] = SuiteCheck(name, points, code)
    return list(checks.values())
