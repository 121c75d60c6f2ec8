"""What the tools remember between runs, in .drills/state.json (not tracked by git): the last
grade of each drill in mine/, how many hints of each drill have been shown, and the language
last asked for on make's command line."""

import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from drills import catalog
from drills.failures import Status


def _state_file() -> Path:
    """.drills/state.json of this checkout. The repository's own tests give the checkout they
    run in a file of their own (DRILLS_TEST_STATE, "CHECKOUT" os.pathsep "FILE"), so that what a
    developer kept there (a language) neither changes their verdicts nor is changed by them; a
    copy of the checkout that a test makes keeps its own."""
    checkout, _, file = os.environ.get("DRILLS_TEST_STATE", "").partition(os.pathsep)
    if file and Path(checkout) == catalog.ROOT:
        return Path(file)
    return catalog.ROOT / ".drills" / "state.json"


STATE = _state_file()


def load() -> dict:
    """What was saved, or {} (with a warning) when the file is missing or not what we wrote."""
    try:
        data = json.loads(STATE.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        data = None
    if not _well_formed(data):
        print(f"warning: {STATE} was unreadable; starting afresh.", file=sys.stderr)
        return {}
    return data


def _well_formed(data) -> bool:
    if not isinstance(data, dict):
        return False
    grades, hints = data.get("grades", {}), data.get("hints", {})
    return (
        isinstance(grades, dict)
        and all(
            isinstance(g, dict)
            and isinstance(g.get("source_sha256", ""), str)
            and isinstance(g.get("status"), str)
            for g in grades.values()
        )
        and isinstance(hints, dict)
        and all(isinstance(n, int) for n in hints.values())
        and data.get("language") in (None, "en", "zh")
    )


def save(data: dict) -> None:
    """Write the whole file at once: a reader never sees half of it."""
    STATE.parent.mkdir(exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=STATE.parent, prefix=".state-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(data, indent=2) + "\n")
    os.replace(temporary, STATE)


def fingerprint(path: Path) -> str:
    """The SHA-256 of what the file holds, "" when there is none: a save that keeps the
    modification time (cp -p, rsync -t, an editor that restores it) changes it all the same."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""


def record_grades(results) -> None:
    """Remember how each drill in mine/ graded, and which version of the file it was."""
    data = load()
    grades = data.setdefault("grades", {})
    for r in results:
        grades[r.id] = {
            "status": r.status,
            "score": r.score,
            "max_score": r.max_score,
            "graded_at": time.time(),
            "source_sha256": fingerprint(catalog.find(r.id).source("mine")),
        }
    save(data)


def last_grade(drill: catalog.Drill) -> dict | None:
    """The last grade of mine/ for this drill, with `current`: whether the file is unchanged
    since; None if never graded."""
    grade = load().get("grades", {}).get(drill.id)
    if not grade:
        return None
    return {**grade, "current": _is_current(grade, drill)}


def last_status(drill: catalog.Drill) -> str | None:
    """The status of the last grade of mine/, or None if never graded or edited since."""
    grade = load().get("grades", {}).get(drill.id)
    if not grade or not _is_current(grade, drill):
        return None
    return grade["status"]


def _is_current(grade: dict, drill: catalog.Drill) -> bool:
    """Whether mine/ holds what it held when graded (a grade from before fingerprints: no)."""
    return grade.get("source_sha256") == fingerprint(drill.source("mine"))


def first_unfinished() -> catalog.Drill:
    """The first drill, in order, not known to pass (the last drill if all pass)."""
    for drill in catalog.DRILLS:
        if last_status(drill) != Status.PASSED:
            return drill
    return catalog.DRILLS[-1]


def hints_shown(drill: catalog.Drill) -> int:
    return load().get("hints", {}).get(drill.id, 0)


def set_hints_shown(drill: catalog.Drill, count: int) -> None:
    data = load()
    data.setdefault("hints", {})[drill.id] = count
    save(data)


def kept_language() -> str | None:
    """The language kept from an earlier command ("en" or "zh"), or None."""
    return load().get("language")


def keep_language(language: str) -> bool:
    """Keep `language` for later commands; whether that changed what was kept. A checkout the
    tools cannot write to keeps nothing, with a warning."""
    data = load()
    if data.get("language") == language:
        return False
    data["language"] = language
    try:
        save(data)
    except OSError as e:
        print(f"warning: the language could not be kept in {STATE}: {e}", file=sys.stderr)
        return False
    return True
