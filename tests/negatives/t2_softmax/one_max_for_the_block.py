"""Several rows per program, and one max for the whole block: tl.max(x) without axis=1.
Right until rows of very different scale share a program."""

LOSES = ["max"]
SAYS = "one max for all of its"
EDITS = [
    (
        "    shifted = x - tl.max(x, axis=1)[:, None]\n",
        "    shifted = x - tl.max(x)\n",
    ),
]
