"""Cuts BLOCK_K to K's next power of two, to waste no lanes on a short K: for K = 8 the block
of K is 8, below the 16 that tl.dot needs on a GPU, so the kernel does not compile there (the
interpreter runs it)."""

LOSES = ["k_tail"]
SAYS = "does not compile for a GPU"
SAYS_ON_GPU = "raised CompilationError"
EDITS = [
    (
        "        BLOCK_K=BLOCK_K,\n",
        "        BLOCK_K=min(BLOCK_K, triton.next_power_of_2(K)),\n",
    ),
]
