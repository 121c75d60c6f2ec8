"""Takes each block's max before masking its scores: the missing keys of the last block score
q . 0 = 0, which only matters for a row whose scores are all far below 0."""

LOSES = ["tails"]
SAYS = "max was taken before the mask"
EDITS = [
    (
        "        new_max = tl.maximum(running_max, tl.max(scores, axis=1))\n",
        "        new_max = tl.maximum(running_max, tl.max(tl.where(visible, scores, 0.0), axis=1))\n",
    ),
]
