"""last_group_unclipped.py's mistake as the matmul checks see it: the grid has a program for
every tile, but the last group's programs step by GROUP_SIZE_M rows, past c, and its tiles get
none. The advice names the mapping, not the grid."""

LOSES = ["multiplies"]
SAYS = "pids do not map to tiles one to one"
EDITS = [
    (
        "    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)\n",
        "    group_size_m = GROUP_SIZE_M\n",
    ),
]
