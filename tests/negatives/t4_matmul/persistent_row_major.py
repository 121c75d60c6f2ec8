"""The persistent kernel (tests/positives/t4_matmul/persistent.py) taking each of its tiles row
by row instead of from grouped_tile: c is right, but the tiles are not visited in grouped order.
On a GPU its programs' tiles are found by cutting the launch's grid, which a persistent kernel
that strides over its tiles by NUM_SMS allows; before, a GPU judged no persistent kernel's order,
and this file kept full marks there."""

LOSES = ["grouped"]
SAYS = "does not visit its tiles in grouped order"
EDITS_OF = "tests/positives/t4_matmul/persistent.py"
EDITS = [
    (
        "        pid_m, pid_n = grouped_tile(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)\n",
        "        pid_m, pid_n = tile_id // num_pid_n, tile_id % num_pid_n\n",
    ),
]
