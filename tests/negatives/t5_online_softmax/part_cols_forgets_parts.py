"""The share of a part forgets to divide by parts: part 0 takes the whole row and the other
parts are empty. The grid has its programs and the values are right; the row is never shared."""

LOSES = ["combine"]
SAYS = "the row's columns must be shared"
EDITS = [
    (
        "    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK_SIZE) * BLOCK_SIZE\n",
        "    part_cols = triton.cdiv(n_cols, BLOCK_SIZE) * BLOCK_SIZE  # the mistake: no / parts\n",
    ),
]
