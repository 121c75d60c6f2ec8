"""Several rows per program, masked by column only: the last program loads and stores rows
past n_rows when they do not divide evenly."""

LOSES = ["rows"]
SAYS = "Mask rows as well as columns"
EDITS = [
    (
        "    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)  # [ROWS, BLOCK_SIZE]\n",
        "    mask = cols[None, :] < n_cols  # [1, BLOCK_SIZE]\n",
    ),
]
