"""Several rows per program, the row max and the row sum subtracted and divided without
[:, None]: a [ROWS] block meets a [ROWS, BLOCK_SIZE] one, and blocks line up from their last
axis, so the maxes would meet the columns. A GPU refuses the shapes (the interpreter too, for
most); the advice says where the axis went."""

LOSES = ["softmax"]
SAYS = "A reduction drops the axis it reduces"
EDITS = [
    ("    shifted = x - tl.max(x, axis=1)[:, None]\n", "    shifted = x - tl.max(x, axis=1)\n"),
    (
        "    denominator = tl.sum(numerator, axis=1)[:, None]\n",
        "    denominator = tl.sum(numerator, axis=1)\n",
    ),
]
