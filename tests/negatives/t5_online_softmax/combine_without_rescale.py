"""The combine takes the largest max but adds the parts' sums as they were, each taken against
its own part's max."""

LOSES = ["combine"]
SAYS = "added its parts' sums as they were"
EDITS = [
    (
        "    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)\n",
        "    row_sum = tl.sum(sums, axis=0)  # the mistake\n",
    ),
]
