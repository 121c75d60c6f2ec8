"""The rescale takes tl.exp of the difference of two base-2 maxes, while p takes exp2: alpha is
exp(d * log2(e)) for the exp(d) it should be, and what came before is weighed wrongly."""

LOSES = ["attends"]
SAYS = "the rescale alpha = tl.exp(old max - new max) is in another base than p"
EDITS = [
    (
        "        alpha = tl.math.exp2(running_max - new_max)\n",
        "        alpha = tl.exp(running_max - new_max)  # the mistake: the maxes are in base 2\n",
    ),
]
