"""Zeroes the accumulator inside the K loop: only the last K block survives."""

LOSES = ["acc_once"]
SAYS = "c holds only the last block of K"
EDITS = [
    (
        "    for k in range(tl.cdiv(K, BLOCK_K)):\n",
        "    for k in range(tl.cdiv(K, BLOCK_K)):\n        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n",
    ),
]
