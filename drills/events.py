"""The judge's events: one JSON object a line on the channel the grader reads (drills/grading.py),
written by the judge's pytest plugin (drills/judge/plugin.py). This module is their one
definition: the plugin makes each with the function named for it, and the grader keeps only
those that `valid` accepts. Standard library only: the grader reads them without torch.

- collected: the cases the judge will run, in order, each with its check's name, id and points;
- start: a case began (a case started and never finished is the one a crash or a timeout hit);
- result: its check's name and id, how it came out (an Outcome), how it stopped where it failed (a Stop, or ""), its
  message, its case id, the failure as data (drills.failures.Failure) and the tile map, if any.
"""

from drills.failures import Failure, Outcome, Stop


def collected(items: list[dict]) -> dict:
    """`items`: {"nodeid", "check", "check_id", "points"} for each case, in the order run."""
    return {"event": "collected", "items": items}


def start(nodeid: str) -> dict:
    return {"event": "start", "nodeid": nodeid}


def result(
    nodeid: str,
    check: str | None,
    check_id: str | None,
    points: float,
    case: str,
    outcome: Outcome,
    kind: Stop | str,
    message: str,
    failure: dict | None = None,
    tiles: dict | None = None,
) -> dict:
    event = {"event": "result", "nodeid": nodeid, "check": check, "check_id": check_id}
    event["points"] = points
    event |= {"case": case, "outcome": outcome, "kind": kind, "message": message}
    if failure is not None:
        event["failure"] = failure
    if tiles is not None:
        event["tiles"] = tiles
    return event


KINDS = {*Stop, ""}  # how a failed case stopped; "" for one that did not fail
OUTCOMES = set(Outcome) - {Outcome.MISSING}  # MISSING is the grader's word, never the judge's


def valid(event) -> bool:
    """Whether `event` is one of the three, with its fields: the judge is trusted, its stream
    is still checked, as any input is."""
    if not isinstance(event, dict):
        return False
    kind = event.get("event")
    if kind == "collected":
        items = event.get("items")
        return isinstance(items, list) and all(
            isinstance(i, dict)
            and isinstance(i.get("nodeid"), str)
            and isinstance(i.get("check"), (str, type(None)))
            and "check_id" in i
            and isinstance(i["check_id"], (str, type(None)))
            and isinstance(i.get("points"), (int, float))
            and 0 <= i["points"] <= 100
            for i in items
        )
    if kind == "start":
        return isinstance(event.get("nodeid"), str)
    if kind == "result":
        return (
            isinstance(event.get("nodeid"), str)
            and "check_id" in event
            and isinstance(event["check_id"], (str, type(None)))
            and event.get("outcome") in OUTCOMES
            and event.get("kind") in KINDS
            and isinstance(event.get("message"), str)
            and isinstance(event.get("case"), str)
            and ("tiles" not in event or valid_tile_map(event["tiles"]))
            and ("failure" not in event or Failure.valid_json(event["failure"]))
        )
    return False


def valid_tile_map(tiles) -> bool:
    """A failing case's map of the output's tiles (drills.judge.testing.TileMap.to_json)."""
    if not isinstance(tiles, dict) or set(tiles) != {
        "block",
        "rows",
        "columns",
        "marks",
        "programs",
    }:
        return False
    numbers = (
        [*tiles["block"], tiles["rows"], tiles["columns"]]
        if isinstance(tiles["block"], list)
        else []
    )
    marks, programs = tiles["marks"], tiles["programs"]
    return (
        len(numbers) == 4
        and all(isinstance(n, int) and n > 0 for n in numbers)
        and isinstance(marks, list)
        and all(isinstance(m, str) and set(m) <= set(".x-") for m in marks)
        and (
            programs is None
            or isinstance(programs, list)
            and len(programs) == len(marks)
            and all(
                isinstance(row, list)
                and len(row) == len(m)
                and all(isinstance(t, list) and all(isinstance(p, int) for p in t) for t in row)
                for row, m in zip(programs, marks, strict=True)
            )
        )
    )
