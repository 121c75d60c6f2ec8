"""Loads x one element early (x_ptr + offs - 1, a shifted pointer): every sum is off by one
place, and program 0 reads the element before x's first. The interpreter sees that read and
names it as before the start; a GPU sees only the wrong values."""

LOSES = ["adds", "inside"]
SAYS = "1 before the first element"
RUNTIMES = ["interpreter"]
EDITS = [
    (
        "    x = tl.load(x_ptr + offs, mask=mask)\n",
        "    x = tl.load(x_ptr + offs - 1, mask=mask)\n",
    ),
]
