"""Stores whole tiles: the edge tiles write past the right and bottom edges of c."""

LOSES = ["edges"]
SAYS = "outside"
EDITS = [
    (
        "    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))\n",
        "    tl.store(c_ptrs, acc.to(tl.float16))\n",
    ),
]
