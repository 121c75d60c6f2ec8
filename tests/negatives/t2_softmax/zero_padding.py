"""Pads masked lanes with 0: every padding lane adds exp(0 - max) to the sum."""

LOSES = ["padding"]
SAYS = "were loaded as 0"
EDITS = [
    (
        'mask=mask, other=-float("inf"))',
        "mask=mask, other=0.0)",
    ),
]
