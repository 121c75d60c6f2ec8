"""The statistics walk only the whole blocks of a part, (end - start) // BLOCK_SIZE of them: the
last, partial block never reaches the max or the sum. Right when its values are no larger
than the rest."""

LOSES = ["late_max"]
SAYS = "left out the last, partial block"
EDITS = [
    (
        "    for block_start in range(start, end, BLOCK_SIZE):\n        cols = block_start + tl.arange(0, BLOCK_SIZE)\n        # padding lanes",
        "    for block_start in range(start, start + (end - start) // BLOCK_SIZE * BLOCK_SIZE, BLOCK_SIZE):\n        cols = block_start + tl.arange(0, BLOCK_SIZE)\n        # padding lanes",
    ),
]
