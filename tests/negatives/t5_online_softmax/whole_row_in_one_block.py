"""t2's habit: a block that holds the whole row, BLOCK_SIZE = next_power_of_2(n_cols). Right
until a row passes 2^20 columns, the largest block triton allows."""

LOSES = ["long"]
SAYS = "2^20"
EDITS = [
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        "    BLOCK_SIZE = triton.next_power_of_2(n_cols)  # the mistake: one block a row\n    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
    ),
]
