"""BLOCK_K = 8: the interpreter multiplies 8-wide blocks, a GPU's tl.dot needs at least 16."""

LOSES = ["compiles"]
SAYS = "16"
EDITS = [
    (
        "BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32\n",
        "BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 8\n",
    ),
]
