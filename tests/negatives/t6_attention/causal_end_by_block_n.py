"""Ends the causal loop at start_m + BLOCK_N where it should end at start_m + BLOCK_M: the same
number while the two blocks are equal, and with BLOCK_M = 128 over BLOCK_N = 64, the second half
of each program's queries never sees the keys up to its own."""

LOSES = ["causal"]
SAYS = "ended at start_m + BLOCK_N, not at start_m + BLOCK_M"
EDITS = [
    ("BLOCK_M = 64\n", "BLOCK_M = 128\n"),
    (
        "    end_n = tl.minimum(seq_k, start_m + BLOCK_M) if CAUSAL else seq_k\n",
        "    end_n = tl.minimum(seq_k, start_m + BLOCK_N) if CAUSAL else seq_k  # the mistake\n",
    ),
]
