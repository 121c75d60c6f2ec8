"""Counts the K loop's steps from M: where M < K (a non-square shape), c holds the sum over the
first M values of k (rounded up to a block) only. Told which size the loop ran over, not given
generic tile advice."""

LOSES = ["row_lengths"]
SAYS = "the K loop ran tl.cdiv(M, BLOCK_K) times"
EDITS = [
    ("    for k in range(tl.cdiv(K, BLOCK_K)):\n", "    for k in range(tl.cdiv(M, BLOCK_K)):\n")
]
