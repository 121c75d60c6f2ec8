"""The Chinese edition (content/zh/) in step with the English one: each page it has keeps the
English page's numbered sections in order, its code blocks word for word, its TODO ids, the
grader's check names and the make commands. A change to any of these in English fails here
until the Chinese page follows."""

import re

import pytest

from drills import catalog
from drills.chinese import WORDS

ROOT = catalog.ROOT
ZH = ROOT / "content" / "zh"
PAIRS = [
    (page, drill.in_language(page, "zh"))
    for drill in catalog.DRILLS
    for page in (drill.lesson, drill.hints)
    if drill.in_language(page, "zh") != page
]


def fenced_blocks(text: str) -> list[str]:
    return re.findall(r"^```\w*\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def numbered_sections(text: str) -> list[str]:
    """The numbers of the '## N.' sections and of the '### Hint N' headings, in order."""
    return re.findall(r"^(?:## (\d+)\.|### Hint (\d+))", text, flags=re.MULTILINE)


def todo_ids(text: str) -> set[str]:
    return set(re.findall(r"`(t\d\.\d+)`", text))


def make_commands(text: str) -> list[str]:
    return re.findall(r"`(make [^`]+)`", text)


def grading_rows(text: str) -> list[list[str]]:
    """The cells of each row of the page's grading table ('| check | points | ...')."""
    table = re.search(r"^\| check \|.*\n\|[-| ]+\|\n((?:\|.*\n)+)", text, flags=re.MULTILINE)
    rows = table.group(1).splitlines() if table else []
    return [[cell.strip() for cell in row.split("|")[1:-1]] for row in rows]


def graded_checks(text: str) -> list[str]:
    """The first column of the page's grading table, each name without the gloss a Chinese
    page adds in full-width brackets."""
    return [re.sub(r"（.*）", "", row[0]).strip() for row in grading_rows(text)]


def out_of_step(english: str, chinese: str) -> list[str]:
    """What the Chinese page lacks of the English one, each said in a line."""
    problems = []
    if numbered_sections(english) != numbered_sections(chinese):
        problems.append(
            f"sections {numbered_sections(english)} in English, {numbered_sections(chinese)} here"
        )
    missing = [b for b in fenced_blocks(english) if b not in fenced_blocks(chinese)]
    problems += [f"code block not here, word for word: {b[:60]!r}" for b in missing]
    if todo_ids(english) != todo_ids(chinese):
        problems.append(f"TODO ids {sorted(todo_ids(english) ^ todo_ids(chinese))} differ")
    if graded_checks(english) != graded_checks(chinese):
        problems.append(
            f"checks {graded_checks(english)} in English, {graded_checks(chinese)} here"
        )
    commands = set(make_commands(english)) ^ set(make_commands(chinese))
    if commands:
        problems.append(f"make commands differ: {sorted(commands)}")
    return problems


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_the_chinese_edition_has_every_drills_lesson_and_hints(drill):
    assert drill.in_language(drill.lesson, "zh") != drill.lesson
    assert drill.in_language(drill.hints, "zh") != drill.hints
    assert (ZH / "glossary.md").is_file()


@pytest.mark.parametrize(
    ("english", "chinese"), PAIRS, ids=[str(p[1].relative_to(ZH)) for p in PAIRS]
)
def test_a_chinese_page_keeps_step_with_its_english_one(english, chinese):
    problems = out_of_step(english.read_text(), chinese.read_text())
    assert not problems, f"{chinese.relative_to(ROOT)} is behind {english.name}:\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("drill", catalog.DRILLS, ids=lambda d: d.id)
def test_a_chinese_lesson_names_its_source_chapter(drill):
    assert "对应原文" in drill.in_language(drill.lesson, "zh").read_text()


@pytest.mark.parametrize(
    "change",
    [
        ("## 12. Going further", "## 12. Going further\n\n## 13. New section"),
        ('print("mask", offs < n_elements)', 'print("mask", offs <= n_elements)'),
        ("| masks the tail | 20 |", "| masks the tail end | 20 |"),
        ("`t1.6`", "`t1.7`"),
        ("make grade DRILL=t1`", "make grade DRILL=t1 CHECK=tail`"),
    ],
    ids=["a section", "a code block", "a check name", "a TODO id", "a command"],
)
def test_the_step_check_sees_each_kind_of_english_change(change):
    t1 = catalog.find("t1")
    english, chinese = t1.lesson.read_text(), t1.in_language(t1.lesson, "zh").read_text()
    old, new = change
    assert old in english
    assert not out_of_step(english, chinese)
    assert out_of_step(english.replace(old, new, 1), chinese)


def test_the_chinese_lesson_names_each_kind_of_failure_as_the_grader_does():
    """T1's key to the grader's messages (lesson §10, before its table of checks) uses the
    names `make grade LANG=zh` prints, so a learner can look a failure up by the words on the
    screen."""
    t1 = catalog.find("t1")
    text = t1.in_language(t1.lesson, "zh").read_text()
    section = text[text.index("## 10.") : text.index("| check |")]
    key = re.findall(r"\*\*(.+?)\*\*（", section)
    names = {words.name for words in WORDS.values()}
    assert len(key) >= 6, key
    assert set(key) <= names, set(key) - names
