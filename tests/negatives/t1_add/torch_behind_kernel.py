"""Launches the kernel on a scratch buffer, then fills out= with torch: through the + operator,
which no reading of the source can tell from integer arithmetic, so the runner's record of the
torch operations run outside a launch is what catches it."""

LOSES = ["launches", "tail"]
MAX_SCORE = 0
SAYS = "computed with torch (add"
EDITS = [
    (
        "    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
        "    scratch = torch.empty_like(x)\n    add_kernel[grid](x, y, scratch, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n    out.copy_(x + y)\n",
    ),
]
