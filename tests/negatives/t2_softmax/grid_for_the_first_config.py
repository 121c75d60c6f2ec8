"""Autotunes ROWS_PER_PROGRAM over 4, 2 and 1 but sizes the grid for 4 rows a program whatever
autotune chose: right while the first config runs; with 2 or 1, which autotune may keep (on a
GPU, timing decides), the last rows are never written."""

LOSES = ["rows"]
SAYS = "never written"
EDITS = [
    (
        "@triton.jit\ndef softmax_kernel(",
        '@triton.autotune(\n    configs=[triton.Config({"ROWS_PER_PROGRAM": r}) for r in (4, 2, 1)],\n'
        '    key=["n_rows", "n_cols"],\n)\n@triton.jit\ndef softmax_kernel(',
    ),
    ("    ROWS_PER_PROGRAM = max(1, 1024 // BLOCK_SIZE)\n", "    ROWS_PER_PROGRAM = 4\n"),
    ("        ROWS_PER_PROGRAM=ROWS_PER_PROGRAM,\n        num_warps=num_warps,\n", ""),
]
