"""Masks a's loads along K only: the rows of the last tiles past M are read past the end of a.
Their products land in rows of c that the store's mask drops, so the values stay right; the
interpreter sees the reads, and a GPU faults on them where a ends at unmapped memory."""

LOSES = ["edges"]
SAYS = "outside `a`"
EDITS = [
    (
        "        a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)\n",
        "        a_mask = offs_k[None, :] < k_remaining\n",
    ),
]
