"""Computes the K remainder with the interpreter config's BLOCK_SIZE_K, 32, written as a number:
right for every config whose K block is 32, and from the second K step on, a config with
64 masks too little and reads past K."""

LOSES = ["k_tail"]
SAYS = "BLOCK_SIZE_K"
# a GPU's configs take other K blocks: the read past K shows as the padding's NaN in the sums
SAYS_ON_GPU = "a load past the end of K was not masked"
EDITS = [
    ("        k_remaining = K - k * BLOCK_SIZE_K\n", "        k_remaining = K - k * 32\n"),
]
