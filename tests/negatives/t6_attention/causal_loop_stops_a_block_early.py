"""With the causal mask the loop stops before the block that holds the program's own
queries."""

LOSES = ["causal"]
SAYS = "stopped before the block of keys"
EDITS = [
    (
        "    end_n = tl.minimum(seq_k, start_m + BLOCK_M) if CAUSAL else seq_k\n",
        "    end_n = tl.minimum(seq_k, start_m) if CAUSAL else seq_k  # the mistake: one block short\n",
    ),
]
