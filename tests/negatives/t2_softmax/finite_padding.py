"""Pads masked lanes with -1e4, a "large negative" number, instead of -inf: right while every
row's values lie well above -1e4, but in a row far below it the padding becomes the max and
every real lane's exp() underflows to 0."""

LOSES = ["padding"]
SAYS = "-inf"
EDITS = [
    (
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=-1e4)",
    ),
]
