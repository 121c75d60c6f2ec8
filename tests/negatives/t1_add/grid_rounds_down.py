"""A grid of n // BLOCK_SIZE programs: the partial last block gets no program."""

LOSES = ["tail", "tiny"]
SAYS = "never written"
EDITS = [
    (
        "    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)\n",
        "    grid = (n_elements // BLOCK_SIZE,)\n",
    ),
]
