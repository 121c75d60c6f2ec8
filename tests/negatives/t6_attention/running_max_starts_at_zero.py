"""The running max starts at 0 instead of -inf: right while a row has a score above 0, but a row
whose scores are all far below it keeps 0 as its max, and every p underflows."""

LOSES = ["attends", "tails"]
SAYS = "the running max started at 0, not -inf, so that"
EDITS = [
    (
        '    running_max = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)\n',
        "    running_max = tl.zeros([BLOCK_M], dtype=tl.float32)  # the mistake\n",
    ),
]
