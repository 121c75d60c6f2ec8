"""The log-sum-exp is left in base 2, as the exp2 loop has it."""

LOSES = ["lse"]
SAYS = "in base 2"
EDITS = [
    (
        "    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634\n",
        "    lse = running_max + tl.math.log2(running_sum)  # the mistake: base 2\n",
    ),
]
