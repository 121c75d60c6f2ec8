"""Writes zeros: every element is written, none is right."""

LOSES = ["softmax"]
SAYS = "wrong values"
EDITS = [
    (
        "    y = numerator / denominator\n",
        "    y = 0.0 * tl.where(mask, x, 0.0)\n",
    ),
]
