"""Stores whole tiles: the edge tiles write past the right and bottom edges of c."""

LOSES = ["edges"]
SAYS = "outside"
EDITS = [
    (
        "    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))\n",
        "    tl.store(c_ptrs, c)\n",
    ),
]
