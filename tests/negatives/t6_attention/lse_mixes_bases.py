"""The log-sum-exp adds the base-2 max to the natural log of the sum."""

LOSES = ["lse"]
SAYS = "base-2 max"
EDITS = [
    (
        "    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634\n",
        "    lse = running_max + tl.log(running_sum)  # the mistake: two bases\n",
    ),
]
