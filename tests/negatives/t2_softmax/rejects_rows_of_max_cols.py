"""Refuses rows of exactly MAX_COLS columns (>= where the limit is inclusive): the longest row
the drill takes raises. Only a GPU case had 65536 columns; the CPU now has one row of them."""

LOSES = ["wide"]
SAYS = "65536"
EDITS = [("    if x.shape[1] > MAX_COLS:\n", "    if x.shape[1] >= MAX_COLS:\n")]
