"""The ordered list of drills: the only place drills are listed, and the curriculum's order."""

import ast
import textwrap
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
    Drill("t5", "t5_online_softmax", "Online softmax", "long rows, a running max, a combine"),
    Drill("t6", "t6_attention", "Attention forward", "FlashAttention: blocks of keys, two dots"),
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


@dataclass(frozen=True)
class SuiteCase:
    """One case of a check, as its suite's text says (no torch needed): its test function,
    the case's id, its parameters as assignments ("n = 1000"; none where the text does not
    give them one by one) and the function's body."""

    function: str
    id: str
    parameters: tuple[str, ...]
    body: str

    def code(self) -> str:
        """The case as code a learner can read: where it is, its parameters, what it runs."""
        where = f"# {self.function}[{self.id}]" if self.id else f"# {self.function}"
        return "\n".join([where, *self.parameters, self.body])


def suite_cases(drill: Drill) -> dict[str, list[SuiteCase]]:
    """The cases of each check of the drill's spec, by id, in the suite's order: each test
    function marked `@check("id")` for it, once per case its `pytest.mark.parametrize` lists
    (one case, its own name as id, for a function without one). A case whose parameters the
    text does not list one by one (`*LARGE`) is left out."""
    source = drill.test_file.read_text()
    cases: dict[str, list[SuiteCase]] = {c.id: [] for c in drill.spec.checks}
    for node in ast.parse(source).body:
        check = _check_of(node)
        if check is None:
            continue
        body = textwrap.dedent(
            "\n".join(source.splitlines()[node.body[0].lineno - 1 : node.end_lineno])
        )
        for id, parameters in _parameter_sets(node, source):
            cases[drill.spec.check(check).id].append(SuiteCase(node.name, id, parameters, body))
    return cases


def _check_of(node: ast.stmt) -> str | None:
    """The id in a test function's `@check("id")`, or None."""
    for decorator in (
        getattr(node, "decorator_list", []) if isinstance(node, ast.FunctionDef) else []
    ):
        if (
            isinstance(decorator, ast.Call)
            and getattr(decorator.func, "id", None) == "check"
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
        ):
            return decorator.args[0].value
    return None


def _parameter_sets(node: ast.FunctionDef, source: str) -> list[tuple[str, tuple[str, ...]]]:
    """(id, assignments) of each case a function's one `parametrize` lists, ids as pytest
    makes them: a `pytest.param`'s own (`drawn(...)` is one, with the id "drawn"), else a
    constant's text, else the name and position."""
    marks = [
        d
        for d in node.decorator_list
        if isinstance(d, ast.Call) and getattr(d.func, "attr", None) == "parametrize"
    ]
    if len(marks) != 1 or not isinstance(marks[0].args[1], (ast.List, ast.Tuple)):
        return [("", ())]  # no parameters, or not listed one by one: the function alone
    names = [n.strip() for n in ast.literal_eval(marks[0].args[0]).split(",")]
    found = []
    for position, element in enumerate(marks[0].args[1].elts):
        own_id = None
        if isinstance(element, ast.Call) and getattr(element.func, "attr", None) == "param":
            ids = [k.value for k in element.keywords if k.arg == "id"]
            own_id = ast.literal_eval(ids[0]) if ids else None
            values = element.args
        elif isinstance(element, ast.Starred):
            continue
        elif isinstance(element, ast.Call) and getattr(element.func, "id", None) == "drawn":
            own_id, values = "drawn", [element]  # drills.judge.testing.drawn's
        else:
            values = (
                element.elts if len(names) > 1 and isinstance(element, ast.Tuple) else [element]
            )
        if own_id is None:
            own_id = "-".join(
                str(v.value) if isinstance(v, ast.Constant) else f"{name}{position}"
                for name, v in zip(names, values, strict=False)
            )
        text = [ast.get_source_segment(source, v) for v in values]
        found.append((own_id, tuple(f"{n} = {t}" for n, t in zip(names, text, strict=False))))
    return found
