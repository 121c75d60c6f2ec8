"""Exponentiates x directly: exp(1000) overflows to inf and inf / inf is NaN."""

LOSES = ["max"]
SAYS = "subtract the row max"
EDITS = [
    (
        "    # subtracting the row max leaves the result unchanged and keeps exp() <= 1\n    shifted = x - tl.max(x, axis=1)[:, None]\n",
        "    shifted = x\n",
    ),
]
