"""The log-sum-exp leaves out the row's max."""

LOSES = ["lse"]
SAYS = "log of the sum alone"
EDITS = [
    (
        "    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634\n",
        "    lse = tl.math.log2(running_sum) / 1.4426950408889634  # the mistake: no max\n",
    ),
]
