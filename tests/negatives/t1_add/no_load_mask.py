"""Loads without a mask but stores with one: the result is right, yet the last program reads
past the end of x and y. The interpreter sees the reads; a GPU faults on them where x ends at
unmapped memory."""

LOSES = ["inside"]
SAYS = "outside `x`"
EDITS = [
    (
        "    x = tl.load(x_ptr + offs, mask=mask)\n    y = tl.load(y_ptr + offs, mask=mask)\n",
        "    x = tl.load(x_ptr + offs)\n    y = tl.load(y_ptr + offs)\n",
    ),
]
