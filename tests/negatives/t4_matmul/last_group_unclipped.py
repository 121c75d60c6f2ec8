"""Uses GROUP_SIZE_M as the height of every group, the last one too."""

LOSES = ["last_group"]
SAYS = "min(num_pid_m - first_pid_m"
EDITS = [
    (
        "    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)\n",
        "    group_size_m = GROUP_SIZE_M\n",
    ),
]
