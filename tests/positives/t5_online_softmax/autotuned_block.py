"""Correct, written differently: the statistics kernel's block is autotuned (1024 or 2048
columns, both dividing a part's 4096-column multiple), keyed on the row length."""

EDITS = [
    (
        "@triton.jit\ndef part_stats_kernel(",
        "@triton.autotune(\n"
        "    configs=[triton.Config({'BLOCK_SIZE': 1024}), triton.Config({'BLOCK_SIZE': 2048})],\n"
        "    key=['n_cols'],\n"
        ")\n"
        "@triton.jit\ndef part_stats_kernel(",
    ),
    (
        "        x, stats[0], stats[1], n_cols, x.stride(0), part_cols, PARTS=parts, BLOCK_SIZE=BLOCK_SIZE\n",
        "        x, stats[0], stats[1], n_cols, x.stride(0), part_cols, PARTS=parts\n",
    ),
]
