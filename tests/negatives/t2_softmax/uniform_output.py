"""Writes 1 / n_cols everywhere: right shape, rows sum to 1, values wrong."""

LOSES = [
    "computes a row-wise softmax",
    "pads masked lanes with -inf (rows that are not a power of two)",
]
SAYS = "wrong values"
EDITS = [
    (
        "    y = numerator / denominator\n",
        "    y = tl.where(mask, 1.0 / n_cols, 0.0) + 0 * x\n",
    ),
]
