"""Steps a's pointers by BLOCK_SIZE_K times b's stride along K, a slip of one letter: a row-major
a's step is 1 element, and this one jumps BLOCK_SIZE_K rows of b's length instead."""

LOSES = ["multiplies"]
SAYS = "pointers into a moved"
EDITS = [
    (
        "        a_ptrs += BLOCK_SIZE_K * stride_ak\n",
        "        a_ptrs += BLOCK_SIZE_K * stride_bk  # the mistake: b's stride\n",
    ),
]
