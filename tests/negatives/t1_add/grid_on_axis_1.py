"""Launches its programs along axis 1 of the grid, grid = (1, cdiv(n, BLOCK_SIZE)): right until
n passes 65535 blocks (67 million elements of 1024), the most a CUDA grid holds along axes 1 and
2. The interpreter has no such limit, so the judge applies it there too; only a GPU case is that
long."""

LOSES = ["tail"]
SAYS = "65535"
RUNTIMES = ["gpu"]
EDITS = [
    ("    pid = tl.program_id(axis=0)\n", "    pid = tl.program_id(axis=1)\n"),
    (
        "    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)\n",
        "    grid = (1, triton.cdiv(n_elements, BLOCK_SIZE))\n",
    ),
]
