"""Takes pid_m and pid_n each modulo its own count: many pids land on the same tile."""

LOSES = ["grouped"]
SAYS = "have no program"
EDITS = [
    (
        "    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m\n    pid_n = (pid % num_pid_in_group) // group_size_m\n",
        "    pid_m = pid % num_pid_m\n    pid_n = pid % num_pid_n\n",
    ),
]
