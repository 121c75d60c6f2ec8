"""Autotunes BLOCK_SIZE over 1024, 512 and 256 but sizes the grid for 1024 whatever autotune
chose: right while the first config runs, and with 512 or 256, which autotune may keep (on a
GPU, timing decides), half or three quarters of the vector is never written."""

LOSES = ["tail"]
SAYS = "never written"
EDITS = [
    (
        "@triton.jit\ndef add_kernel(",
        '@triton.autotune(\n    configs=[triton.Config({"BLOCK_SIZE": b}) for b in (1024, 512, 256)],\n'
        '    key=["n_elements"],\n)\n@triton.jit\ndef add_kernel(',
    ),
    (
        "    add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)\n",
        "    add_kernel[grid](x, y, out, n_elements)\n",
    ),
]
