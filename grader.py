"""Grade the drills: `python grader.py --help`, or `make grade`."""

import sys

from drills.cli import main

if __name__ == "__main__":
    sys.exit(main())
