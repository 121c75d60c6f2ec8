"""The max and the sum over axis 0 of the [ROWS_PER_PROGRAM, BLOCK_SIZE] block: down each
column, across the program's rows, instead of along each row."""

LOSES = ["softmax"]
SAYS = "reduce along each row, with axis=1"
EDITS = [
    (
        "    shifted = x - tl.max(x, axis=1)[:, None]\n",
        "    shifted = x - tl.max(x, axis=0)[None, :]\n",
    ),
    (
        "    denominator = tl.sum(numerator, axis=1)[:, None]\n",
        "    denominator = tl.sum(numerator, axis=0)[None, :]\n",
    ),
]
