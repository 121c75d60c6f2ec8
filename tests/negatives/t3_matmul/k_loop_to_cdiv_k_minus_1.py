"""Runs the K loop cdiv(K - 1, BLOCK_K) times: right unless K is one past a multiple of BLOCK_K,
where the last block, a single column of a and row of b, is left out."""

LOSES = ["last_k_block"]
SAYS = "cdiv(K, BLOCK_K)"
EDITS = [
    (
        "    for k in range(tl.cdiv(K, BLOCK_K)):\n",
        "    for k in range(tl.cdiv(K - 1, BLOCK_K)):\n",
    ),
]
