"""The reference's kernel without @triton.autotune, launched with one fixed config (64 x 64
tiles, BLOCK_SIZE_K = 32): correct, but not autotuned."""

LOSES = ["autotune_grid"]
SAYS = "not autotuned"
EDITS = [
    (
        '# the key: the shape and the layout, which can change the best config. stride_ak is 1 for a\n# row-major a; stride_bk is 1 for b = w.t() (a row-major b has stride_bk = N, stride_bn = 1)\n@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n',
        "",
    ),
    (
        '    # a function of the config autotune picks: its block sizes decide the number of tiles\n    grid = lambda META: (\n        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),\n    )\n',
        "    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64),)\n",
    ),
    (
        "        out.stride(1),\n    )\n",
        "        out.stride(1),\n        BLOCK_SIZE_M=64,\n        BLOCK_SIZE_N=64,\n        BLOCK_SIZE_K=32,\n        GROUP_SIZE_M=4,\n    )\n",
    ),
]
