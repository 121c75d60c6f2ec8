"""Masks K with tl.arange(0, BLOCK_K) < K - k, where k counts blocks, not elements: the mask of
the last block lets every lane through, and the loads run past K into the next row of a (and
past the end of a). Told how such a mask goes wrong, not only that loads need masks."""

LOSES = ["k_tail"]
SAYS = "where k counts blocks"
# a GPU sees no read, only its NaN padding in every element (H100, triton 3.6, 2026-12-06)
SAYS_ON_GPU = "a load past the end of K"
EDITS = [
    (
        "        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
        "        lanes = tl.arange(0, BLOCK_K)\n"
        "        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (lanes[None, :] < K - k), other=0.0)\n",
    ),
    (
        "        b = tl.load(b_ptrs, mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n",
        "        b = tl.load(b_ptrs, mask=(lanes[:, None] < K - k) & (cols[None, :] < N), other=0.0)\n",
    ),
]
