"""Stores without a mask: the last program writes past the end of the output."""

LOSES = ["inside"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y)\n",
    ),
]
