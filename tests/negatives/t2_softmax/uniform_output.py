"""Writes 1 / n_cols everywhere: right shape, rows sum to 1, values wrong."""

LOSES = ["softmax", "padding"]
SAYS = "wrong values"
EDITS = [
    (
        "    y = numerator / denominator\n",
        "    y = tl.where(mask, 1.0 / n_cols, 0.0) + 0 * x\n",
    ),
]
