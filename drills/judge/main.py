"""The judge's process: `python -B -m drills.judge.main JOB_FD PYTEST_ARGUMENTS...`.

It imports torch and triton, forks its fork server (drills/judge/forks.py) from that image, and
only then reads its job from JOB_FD: the environment to run in, which the grader does not put
on its command line or in its starting environment (that image is what every runner is forked
from), and the cases an earlier judge of this drill graded. Then it runs the drill's suite.
"""

import json
import os
import sys

from drills import processes
from drills.judge import forks


def main() -> int:
    # before the fork: the server, and every process forked from it, keep these
    processes.guard_this_process()
    processes.first_to_go_when_memory_runs_out()
    forks.load_the_image()
    forks.start()
    with os.fdopen(int(sys.argv[1]), "rb") as f:
        job = json.loads(f.read())
    os.environ.clear()
    os.environ.update(job["environment"])
    import pytest

    return pytest.main([*sys.argv[2:], "--drills-graded", json.dumps(job["graded"])])


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # every result is in the events pipe, and every process this one started is ended: what
    # is left is unloading torch, which takes a second
    os._exit(code)
