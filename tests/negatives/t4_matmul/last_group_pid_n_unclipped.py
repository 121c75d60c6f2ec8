"""Clips the last group's height with min, but divides by GROUP_SIZE_M for pid_n: the last
group's programs then share tiles."""

LOSES = ["last_group"]
SAYS = "pid_n = (pid % num_pid_in_group) // group_size_m"
EDITS = [
    (
        "    pid_n = (pid % num_pid_in_group) // group_size_m\n",
        "    pid_n = (pid % num_pid_in_group) // GROUP_SIZE_M\n",
    ),
]
