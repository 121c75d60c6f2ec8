"""A part's share is n_cols // parts, rounded down before it is rounded up to whole blocks: when
that share is a whole number of blocks, the row's last columns belong to no part."""

LOSES = ["combine"]
SAYS = "rounded down first"
EDITS = [
    (
        "    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK_SIZE) * BLOCK_SIZE\n",
        "    part_cols = triton.cdiv(n_cols // parts, BLOCK_SIZE) * BLOCK_SIZE  # the mistake\n",
    ),
]
