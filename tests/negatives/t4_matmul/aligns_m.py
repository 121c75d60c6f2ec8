"""Applies the alignment promise to M as well: the last rows go unwritten when M is not a
multiple of 8 while N, K and the strides are."""

LOSES = ["edges"]
SAYS = "is M = 108 rounded down to a multiple of 8"
EDITS = [
    (
        "    N = known_multiple(N, ALIGN)\n",
        "    M = known_multiple(M, ALIGN)\n    N = known_multiple(N, ALIGN)\n",
    ),
]
