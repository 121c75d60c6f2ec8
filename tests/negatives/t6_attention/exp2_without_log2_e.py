"""exp2 on scores scaled for exp: the softmax is taken in base 2."""

LOSES = ["attends", "scale"]
SAYS = "multiplied by log2(e)"
EDITS = [
    (
        "        scale * LOG2_E,\n",
        "        scale,  # the mistake: exp2 needs the scores times log2(e)\n",
    ),
]
