"""Drops the mask when n is a multiple of 128, as a fast path for "even" sizes, while the block is
1024: at n = 4352 (17 x 256) the last program's block still runs 768 elements past the end."""

LOSES = ["tail"]
SAYS = "outside the output"
EDITS = [
    (
        "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):",
        "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr, "
        "EVEN: tl.constexpr):",
    ),
    ("    mask = offs < n_elements\n", "    mask = offs >= 0 if EVEN else offs < n_elements\n"),
    (
        "BLOCK_SIZE=BLOCK_SIZE, num_warps=4)",
        "BLOCK_SIZE=BLOCK_SIZE, EVEN=n_elements % 128 == 0, num_warps=4)",
    ),
]
