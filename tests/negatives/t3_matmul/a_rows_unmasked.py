"""Masks a's loads along K only: the rows of the last tile past M are read past the end of a.
Their products land in rows of c that the store's mask drops, so the values stay right; the
interpreter sees the reads, and a GPU faults on them where a ends at unmapped memory."""

LOSES = ["edges"]
SAYS = "outside `a`"
EDITS = [
    (
        "        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)\n",
        "        a = tl.load(a_ptrs, mask=ks[None, :] < K, other=0.0)\n",
    ),
]
