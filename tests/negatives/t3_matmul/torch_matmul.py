"""Multiplies with the @ operator and launches nothing."""

LOSES = ["launches"]
MAX_SCORE = 0
SAYS = "no Triton kernel was launched"
EDITS = [
    (
        "    matmul_kernel[grid](\n        a,\n        b,\n        out,\n        M,\n        N,\n        K,\n        BLOCK_M=BLOCK_M,\n        BLOCK_N=BLOCK_N,\n        BLOCK_K=BLOCK_K,\n        num_warps=4,\n        num_stages=4,\n    )\n",
        "    out.copy_(a @ b)\n",
    ),
]
