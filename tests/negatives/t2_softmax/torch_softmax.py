"""Calls torch.softmax and launches nothing."""

LOSES = ["launches"]
MAX_SCORE = 0
SAYS = "uses torch.softmax"
EDITS = [
    (
        "    softmax_kernel[grid](\n        x,\n        out,\n        n_rows,\n        n_cols,\n        x.stride(0),\n        out.stride(0),\n        BLOCK_SIZE=BLOCK_SIZE,\n        ROWS_PER_PROGRAM=ROWS_PER_PROGRAM,\n        num_warps=num_warps,\n    )\n",
        "    out.copy_(torch.softmax(x, dim=-1))\n",
    ),
]
