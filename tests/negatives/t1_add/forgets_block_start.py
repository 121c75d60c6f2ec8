"""Offsets pid + arange instead of pid * BLOCK_SIZE + arange: blocks overlap."""

LOSES = ["adds"]
SAYS = "so the blocks overlap"
EDITS = [
    (
        "    offs = block_start + tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]\n",
        "    offs = pid + tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]\n",
    ),
]
