"""Also writes the sum into x: the output is right but an input was changed."""

LOSES = ["inside"]
SAYS = "changed"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n    tl.store(x_ptr + offs, x + y, mask=mask)\n",
    ),
]
