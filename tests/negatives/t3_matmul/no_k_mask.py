"""Loads without ks < K: the last K step reads past the end of each row of a, and past the end of b."""

LOSES = ["k_tail"]
SAYS = "K"
EDITS = [
    (
        "        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
        "        a = tl.load(a_ptrs, mask=rows[:, None] < M, other=0.0)\n",
    ),
    (
        "        b = tl.load(b_ptrs, mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)\n",
        "        b = tl.load(b_ptrs, mask=cols[None, :] < N, other=0.0)\n",
    ),
]
