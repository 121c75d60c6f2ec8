"""The combine weighs each part's sum by exp2(part max - row max), though the parts took their
maxes and sums in base e: each weight is exp((part max - row max) * ln 2)."""

LOSES = ["combine"]
SAYS = "the combine weighed each part's sum by exp2(part max - row max)"
EDITS = [
    (
        "    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)\n",
        "    row_sum = tl.sum(sums * tl.math.exp2(maxes - row_max), axis=0)  # the mistake\n",
    ),
]
