"""A persistent kernel that starts its accumulator once, before its loop over tiles, not once
per tile: right while each program has one tile, wrong from a program's second tile on, which
adds the first tile's sum into its own. On the interpreter programs are few (3) and take several
tiles each; on a GPU only shapes with more tiles than SMs show it."""

LOSES = ["multiplies"]
SAYS = "wrong values"
EDITS_OF = "tests/positives/t4_matmul/persistent.py"
EDITS = [
    (
        "    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):\n",
        (
            "    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)\n"
            "    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):\n"
        ),
    ),
    ("        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)\n", ""),
]
