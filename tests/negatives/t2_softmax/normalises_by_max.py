"""Divides by the largest exponential instead of the sum: rows do not sum to 1."""

LOSES = ["softmax"]
SAYS = "not by its max"
EDITS = [
    (
        "    denominator = tl.sum(numerator, axis=1)[:, None]\n",
        "    denominator = tl.max(numerator, axis=1)[:, None]\n",
    ),
]
