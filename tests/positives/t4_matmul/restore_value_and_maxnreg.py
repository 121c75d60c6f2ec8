"""Correct, written differently: autotune told to restore c between its timing runs
(restore_value=["c_ptr"]), and every GPU config capped at 255 registers a thread (maxnreg).
100/100 on an H100 (torch 2.11, triton 3.6) and on the CPU."""

EDITS = [
    (
        '@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])',
        '@triton.autotune(\n    configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"], restore_value=["c_ptr"]\n)',
    ),
    (
        "        num_stages=stages,\n        num_warps=warps,\n",
        "        num_stages=stages,\n        num_warps=warps,\n        maxnreg=255,\n",
    ),
]
