"""Loads the whole block unmasked: lanes past n_cols read the next row or the gap."""

LOSES = ["inside"]
SAYS = "outside `x`"
EDITS = [
    (
        '    x = tl.load(x_ptrs, mask=mask, other=-float("inf")).to(tl.float32)\n',
        '    x = tl.load(x_ptrs).to(tl.float32)\n    x = tl.where(mask, x, -float("inf"))\n',
    ),
]
