"""Each block's max is taken alone as the new max, not carried from the blocks before: right
while the max only grows along the row."""

LOSES = ["rescale"]
SAYS = "not carried from the blocks before"
EDITS = [
    (
        "        new_max = tl.maximum(running_max, tl.max(x, axis=0))\n",
        "        new_max = tl.max(x, axis=0)  # the mistake: the running max is forgotten\n",
    ),
]
