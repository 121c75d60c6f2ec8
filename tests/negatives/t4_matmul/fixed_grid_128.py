"""Autotuned, but the grid assumes 128 x 128 tiles: with any other config, tiles go without a
program. (The kernel is the reference's: only the launch is wrong.)"""

LOSES = ["autotune_grid"]
SAYS = "never written"
EDITS = [
    (
        '    # a function of the config autotune picks: its block sizes decide the number of tiles\n    grid = lambda META: (\n        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),\n    )\n',
        "    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)\n",
    ),
]
