"""A persistent kernel that gives each program a run of num_tiles // NUM_SMS tiles, rounded
down: right when the tiles are a multiple of the programs, but the last num_tiles % NUM_SMS
tiles then belong to no program. On the interpreter the programs (3) rarely divide the tiles;
on a GPU only shapes with more tiles than SMs, and not a multiple of them, show it."""

LOSES = ["multiplies"]
SAYS = "never written"
EDITS_OF = "tests/positives/t4_matmul/persistent.py"
EDITS = [
    (
        "    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):\n",
        (
            "    per_program = num_tiles // NUM_SMS\n"
            "    for tile_id in tl.range(start_pid * per_program, (start_pid + 1) * per_program):\n"
        ),
    ),
]
