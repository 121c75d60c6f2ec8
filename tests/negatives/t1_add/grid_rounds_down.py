"""A grid of n // BLOCK_SIZE programs: the partial last block gets no program."""

LOSES = ["masks the tail (n not a multiple of BLOCK_SIZE)", "handles tiny sizes down to 1"]
SAYS = "never written"
EDITS = [
    (
        "    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)\n",
        "    grid = (n_elements // BLOCK_SIZE,)\n",
    ),
]
