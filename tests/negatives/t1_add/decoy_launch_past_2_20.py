"""Past 2^20 elements it adds the first block only, and launches beside it 20,001 programs that
do nothing, hoping the interpreter leaves the case to a GPU, as it leaves a case marked large
whose launches all have that many programs (tiny blocks). A small launch beside the large one
is not that: the case fails on the CPU, saying so, and a GPU sees the wrong sums."""

LOSES = ["tail"]
SAYS = "more than the interpreter runs in a case's time"
SAYS_ON_GPU = "never written"
EDITS = [
    (
        "@triton.jit\ndef add_kernel(",
        "@triton.jit\ndef idle_kernel(x_ptr):\n    pass\n\n\n@triton.jit\ndef add_kernel(",
    ),
    (
        "    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
        "    if n_elements > 2**20:\n"
        "        add_kernel[(1,)](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n"
        "        idle_kernel[(20_001,)](x)\n"
        "    else:\n"
        "        add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
    ),
]
