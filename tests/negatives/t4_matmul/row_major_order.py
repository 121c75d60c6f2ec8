"""Visits tiles row by row: every tile is computed, but not in grouped order."""

LOSES = ["grouped"]
SAYS = "grouped order"
EDITS = [
    (
        "    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m\n    pid_n = (pid % num_pid_in_group) // group_size_m\n",
        "    pid_m = pid // num_pid_n\n    pid_n = pid % num_pid_n\n",
    ),
]
