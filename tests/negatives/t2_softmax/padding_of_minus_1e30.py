"""Pads masked lanes with -1e30, "minus infinity" to many, instead of -inf: right for every row
above -1e30, but a row below it (rows at -2^120, about -1.3e36) has the padding as its max, and
every real lane's exp() underflows to 0."""

LOSES = ["padding"]
SAYS = "-inf"
EDITS = [
    (
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=-1e30)",
    ),
]
