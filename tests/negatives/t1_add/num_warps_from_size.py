"""Takes num_warps from the element count: 12 warps for 98,431 elements, which a GPU refuses
(not a power of two), and past 2^18 elements more than 32.
"""

LOSES = ["tail"]
SAYS = "a power of two from 1 to 32"
EDITS = [
    (
        "    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
        "    num_warps = max(4, n_elements // 8192)\n    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)\n",
    ),
]
