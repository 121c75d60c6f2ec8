"""Stores without a mask: the last program writes past the end of the output."""

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y)\n",
    ),
]
