"""Caps BLOCK_SIZE at 16384 columns, with no loop over the rest of a longer row: rows of up to
16384 columns are right, and the columns past that of a longer row are never written."""

LOSES = ["wide"]
SAYS = "never written"
EDITS = [
    (
        "    BLOCK_SIZE = triton.next_power_of_2(n_cols)\n",
        "    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 16384)\n",
    ),
]
