"""A grid of M // BLOCK_M by N // BLOCK_N programs: the edge tiles get none."""

LOSES = ["grid"]
SAYS = "never written"
EDITS = [
    (
        "    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))\n",
        "    grid = (max(M // BLOCK_M, 1), max(N // BLOCK_N, 1))\n",
    ),
]
