"""Computes x + y with torch.add and launches nothing: the judge's reading of the source
finds torch.add before anything runs."""

LOSES = ["launches", "adds"]
MAX_SCORE = 0
SAYS = "uses torch.add"
EDITS = [
    (
        "    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
        "    torch.add(x, y, out=out)\n",
    ),
]
