"""Guards against exp(-inf - (-inf)) on the block's max instead of the running max: a block of
-inf alone after the row's values shifts by 0 and rescales the sum by exp(the row's max)."""

LOSES = ["padding"]
SAYS = "last 8192 columns -inf"
EDITS = [
    (
        '        shift = tl.where(new_max == -float("inf"), 0.0, new_max)\n',
        "        block_max = tl.max(x, axis=0)\n"
        '        shift = tl.where(block_max == -float("inf"), 0.0, new_max)\n',
    ),
]
