"""Also writes the sum into x: the output is right but an input was changed."""

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "changed"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n    tl.store(x_ptr + offs, x + y, mask=mask)\n",
    ),
]
