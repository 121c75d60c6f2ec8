"""Masked lanes load -1e4, a number some call minus infinity: it wins the max of a row near
-1e5."""

LOSES = ["padding"]
SAYS = "Masked lanes must load -inf"
EDITS = [
    (
        '        x = tl.load(row_start + cols, mask=cols < end, other=-float("inf")).to(tl.float32)\n',
        "        x = tl.load(row_start + cols, mask=cols < end, other=-1e4).to(tl.float32)\n",
    ),
]
