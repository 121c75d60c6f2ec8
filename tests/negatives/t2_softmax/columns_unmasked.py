"""Several rows per program, masked by row only: the last row's block runs past n_cols, and the
lanes past it land after the end of x and out. Told that the columns ran on, not that the rows
do not exist."""

LOSES = ["padding"]
SAYS = "ran on past n_cols"
EDITS = [
    (
        "    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)  # [ROWS, BLOCK_SIZE]\n",
        "    mask = rows[:, None] < n_rows  # [ROWS, 1]: the columns are not masked\n",
    ),
]
