"""Steps through b's rows by K instead of N: right for square matrices only."""

LOSES = ["row_lengths"]
SAYS = "the rows of b were read 32 elements apart, but they lie 200 apart"
EDITS = [
    (
        "        b_ptrs = b_ptr + ks[:, None] * N + cols[None, :]  # [BLOCK_K, BLOCK_N]\n",
        "        b_ptrs = b_ptr + ks[:, None] * K + cols[None, :]  # [BLOCK_K, BLOCK_N]\n",
    ),
]
