"""The grid from the first config of the list, not from the one autotune chose: on a GPU,
where the list has many, the configs with tiles smaller than the first's leave tiles of c
without a program. Right with the interpreter's list of one; on the CPU the judge runs the
list a GPU machine makes, as there. (The kernel is the reference's: only the launch is
wrong.)"""

LOSES = ["autotune_grid"]
SAYS = "never written"
EDITS = [
    (
        '    # a function of the config autotune picks: its block sizes decide the number of tiles\n    grid = lambda META: (\n        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),\n    )\n',
        '    first = CONFIGS[0].kwargs\n    grid = (triton.cdiv(M, first["BLOCK_SIZE_M"]) * triton.cdiv(N, first["BLOCK_SIZE_N"]),)\n',
    ),
]
