"""A fixed BLOCK_SIZE of 4096: longer rows are cut short."""

LOSES = ["wide"]
SAYS = "never written"
EDITS = [
    (
        "    BLOCK_SIZE = triton.next_power_of_2(n_cols)\n",
        "    BLOCK_SIZE = 4096\n",
    ),
]
