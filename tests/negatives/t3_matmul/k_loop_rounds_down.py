"""Runs the K loop K // BLOCK_K times: the last, partial block of K is skipped."""

LOSES = ["last_k_block"]
SAYS = "c leaves out the last, partial block of K"
EDITS = [
    (
        "    for k in range(tl.cdiv(K, BLOCK_K)):\n",
        "    for k in range(K // BLOCK_K):\n",
    ),
]
