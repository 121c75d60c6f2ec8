"""Keeps grouped_tile right but does not call it: the kernel maps pid to its tile row by row.
Every tile is computed, so c is right, but the programs do not visit the tiles in grouped
order (the L2 reuse the drill is about is lost)."""

LOSES = ["grouped"]
SAYS = "grouped order"
EDITS = [
    (
        "    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)\n",
        "    pid_m = pid // num_pid_n\n    pid_n = pid % num_pid_n\n",
    ),
]
