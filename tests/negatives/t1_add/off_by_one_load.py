"""Loads with an off-by-one mask (offs <= n_elements) but stores with the right one: the
result is right, yet the last program reads one element past the end of x and y. The
interpreter sees the read; a GPU faults on it where x ends at unmapped memory."""

LOSES = ["inside"]
SAYS = "outside `x`"
EDITS = [
    (
        "    x = tl.load(x_ptr + offs, mask=mask)\n    y = tl.load(y_ptr + offs, mask=mask)\n",
        "    x = tl.load(x_ptr + offs, mask=offs <= n_elements)\n    y = tl.load(y_ptr + offs, mask=offs <= n_elements)\n",
    ),
]
