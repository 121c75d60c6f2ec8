"""The normalising pass walks from its part's first column to the row's end, not to the next
part's first: every value is right, but part 0 stores the whole row, and each later part
stores again what the parts after it store. The interpreter notes the lowest program that
stored each element of a launch, so this shows whatever order the programs ran in."""

LOSES = ["combine"]
SAYS = "one of them stored every column"
EDITS = [
    (
        """    for block_start in range(start, end, BLOCK_SIZE):
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        mask = cols < end
        x = tl.load(x_row + cols, mask=mask).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
""",
        """    for block_start in range(start, n_cols, BLOCK_SIZE):  # the mistake: to the row's end
        cols = block_start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask).to(tl.float32)
        y = tl.exp(x - row_max) / row_sum
""",
    ),
]
