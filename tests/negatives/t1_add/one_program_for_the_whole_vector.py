"""One program with a block as long as the vector (rounded up to a power of two): right until n
passes 2^20, the most elements triton lets a block have, and slow long before that on a GPU,
where one program runs on one SM."""

LOSES = ["tail"]
SAYS = "holds at most 2^20"
EDITS = [
    ("    BLOCK_SIZE = 1024\n", "    BLOCK_SIZE = triton.next_power_of_2(n_elements)\n"),
]
