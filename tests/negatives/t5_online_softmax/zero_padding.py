"""Masked lanes load 0: each adds exp(0 - max) to the sum, and 0 becomes the max of a row far
below it."""

LOSES = ["padding"]
SAYS = "Masked lanes must load -inf"
EDITS = [
    (
        '        x = tl.load(row_start + cols, mask=cols < end, other=-float("inf")).to(tl.float32)\n',
        "        x = tl.load(row_start + cols, mask=cols < end, other=0.0).to(tl.float32)\n",
    ),
]
