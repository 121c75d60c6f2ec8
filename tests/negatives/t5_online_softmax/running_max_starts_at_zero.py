"""The running max starts at 0, not -inf: harmless for rows with a value above 0, but a row far
below zero keeps 0 as its max, every exp() underflows, and 0 / 0 is NaN."""

LOSES = ["padding"]
SAYS = "running max started at 0"
EDITS = [
    (
        '    running_max = -float("inf")\n',
        "    running_max = 0.0  # the mistake\n",
    ),
]
