"""Steps b's pointers by BLOCK_SIZE_K elements, not BLOCK_SIZE_K rows: right only where b's
stride along K is 1 (b = w.t())."""

LOSES = ["multiplies"]
SAYS = "the pointers into b moved"
EDITS = [
    (
        "        b_ptrs += BLOCK_SIZE_K * stride_bk\n",
        "        b_ptrs += BLOCK_SIZE_K\n",
    ),
]
