"""Stores one element to the right: element 0 is never written, one lands past the end."""

LOSES = ["inside"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs + 1, x + y, mask=mask)\n",
    ),
]
