"""One grading step of the GitHub Classroom workflow (autograding.yml):
`python course/classroom/grade_step.py DRILL [GRADER OPTION ...]`.

Grades one drill (mine/, unless an option says otherwise) and hands each of its checks to
GitHub Classroom's autograding-grading-reporter as a runner of its own, named after the check
(t1_adds_two_vectors ...): each runner's result goes into the job's environment as
<RUNNER>_RESULTS, where the reporter reads it, and their names into this step's output
`runners`, for the reporter's `runners` input.

The grader's own output (the report students read in the step's log) goes out with workflow
commands stopped, under a token no submission can know: a line of it that reads as
`::notice ...` is shown, not acted on. The grader writes learner text inert already; this
covers whatever else the step prints.

Exit status: the grader's, except 1 (a drill that did not pass), which is a grade and not a
failure of the step: a failed step would stop the job before the reporter runs.
"""

import json
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__.splitlines()[1].strip("`"), file=sys.stderr)
        return 2
    missing = [name for name in ("GITHUB_ENV", "GITHUB_OUTPUT") if not os.environ.get(name)]
    if missing:
        print(
            f"grade_step.py: {' and '.join(missing)} not set: this runs as a step of a GitHub "
            "Actions workflow (course/classroom/autograding.yml)",
            file=sys.stderr,
        )
        return 2
    drill, *options = argv
    with tempfile.TemporaryDirectory(prefix="classroom-") as folder:
        payloads = Path(folder) / "classroom.json"
        command = [sys.executable, "grader.py", drill, *options, "--format", "classroom"]
        token = secrets.token_hex(16)
        print(f"::stop-commands::{token}", flush=True)
        try:
            status = subprocess.run([*command, str(payloads)], cwd=ROOT, check=False).returncode
        finally:
            print(f"::{token}::", flush=True)
        if status not in (0, 1):
            return status
        runners = json.loads(payloads.read_text())
    _append(os.environ["GITHUB_ENV"], [f"{r.upper()}_RESULTS={p}" for r, p in runners.items()])
    _append(os.environ["GITHUB_OUTPUT"], [f"runners={','.join(runners)}"])
    return 0


def _append(path: str, lines: list[str]) -> None:
    with open(path, "a") as f:
        f.writelines(line + "\n" for line in lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
