"""Loads the padding lanes as 0 and keeps them out of the sum, but not out of the max. Right
until a row lies far below 0 at a width that is not a power of two."""

LOSES = ["padding"]
SAYS = "the max was taken over the"
EDITS = [
    (
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=0.0)",
    ),
    (
        "    numerator = tl.exp(shifted)\n",
        "    numerator = tl.where(mask, tl.exp(shifted), 0.0)\n",
    ),
]
