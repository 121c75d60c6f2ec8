"""Sizes a group by the wrong side of the grid, num_pid_in_group = GROUP_SIZE_M * num_pid_m:
a group of GROUP_SIZE_M rows of tiles has num_pid_n tiles in each row, so where the grid is not
square pids map to columns past its last one and other tiles get no program."""

LOSES = ["grouped"]
SAYS = "GROUP_SIZE_M * num_pid_n"
EDITS = [
    (
        "    num_pid_in_group = GROUP_SIZE_M * num_pid_n\n",
        "    num_pid_in_group = GROUP_SIZE_M * num_pid_m\n",
    ),
]
