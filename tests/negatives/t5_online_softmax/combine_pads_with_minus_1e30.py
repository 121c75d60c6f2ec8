"""The combine's padding pairs load a max of -1e30, a number some call minus infinity: with 3
parts there is a padding pair, and in a row below -1e30 it wins the max, so every part's
weight exp(m - (-1e30)) is 0 and the row is 0 / 0."""

LOSES = ["padding"]
SAYS = "or a -1e30 standing in for -inf"
EDITS = [
    (
        '    maxes = tl.load(max_ptr + row * PARTS + parts, mask=in_row, other=-float("inf"))\n',
        "    maxes = tl.load(max_ptr + row * PARTS + parts, mask=in_row, other=-1e30)\n",
    ),
]
