"""Takes each row's max from the first block of keys and keeps it: a later key scoring far
above it sends p past fp16's range."""

LOSES = ["attends"]
SAYS = "the max it subtracted missed it"
EDITS = [
    (
        "        new_max = tl.maximum(running_max, tl.max(scores, axis=1))\n",
        "        new_max = tl.where(start_n == 0, tl.max(scores, axis=1), running_max)\n",
    ),
]
