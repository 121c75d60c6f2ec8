"""Square blocks, as many rows per program as columns in the block, and the row max and sum
used without [:, None]: the shapes then fit, and row j's max and sum meet column j. Rows of
padding give -inf maxes, so NaN comes out; the advice names the axis, not overflow or padding.
"""

LOSES = ["narrow"]
SAYS = "row j's met column j"
EDITS = [
    ("    shifted = x - tl.max(x, axis=1)[:, None]\n", "    shifted = x - tl.max(x, axis=1)\n"),
    (
        "    denominator = tl.sum(numerator, axis=1)[:, None]\n",
        "    denominator = tl.sum(numerator, axis=1)\n",
    ),
    (
        "    ROWS_PER_PROGRAM = max(1, 1024 // BLOCK_SIZE)\n",
        "    ROWS_PER_PROGRAM = BLOCK_SIZE  # square blocks\n",
    ),
]
