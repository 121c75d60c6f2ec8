"""Autotunes the tile over 128 x 128, 64 x 64 and 32 x 32 but sizes the grid with the module's
128 x 128 whatever autotune chose: right while the first config runs; with a smaller tile,
which autotune may keep (on a GPU, timing decides), most of c is never written."""

LOSES = ["grid"]
SAYS = "never written"
EDITS = [
    (
        "@triton.jit\ndef matmul_kernel(",
        "@triton.autotune(\n    configs=[\n"
        '        triton.Config({"BLOCK_M": t, "BLOCK_N": t, "BLOCK_K": 32}) for t in (128, 64, 32)\n'
        '    ],\n    key=["M", "N", "K"],\n)\n@triton.jit\ndef matmul_kernel(',
    ),
    (
        "        BLOCK_M=BLOCK_M,\n        BLOCK_N=BLOCK_N,\n        BLOCK_K=BLOCK_K,\n"
        "        num_warps=4,\n        num_stages=4,\n",
        "",
    ),
]
