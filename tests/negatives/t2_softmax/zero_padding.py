"""Pads masked lanes with 0: every padding lane adds exp(0 - max) to the sum."""

LOSES = ["pads masked lanes with -inf (rows that are not a power of two)"]
SAYS = "were loaded as 0"
EDITS = [
    (
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=0.0)",
    ),
]
