"""Caps the grid at 65535 programs, a limit CUDA puts on a grid's y and z axes but not on x
(2^31 - 1 there): past 65535 * BLOCK_SIZE elements (67 million here) the tail is never
written. Only a GPU runs a case that large."""

LOSES = ["tail"]
SAYS = "the grid launched only 65535 programs"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)\n",
        "    grid = (min(triton.cdiv(n_elements, BLOCK_SIZE), 65535),)\n",
    ),
]
