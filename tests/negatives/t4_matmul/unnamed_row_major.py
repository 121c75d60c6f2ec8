"""Triton's tutorial 03 with constexprs of its own names (BM, BN, BK, GM) and no grouped_tile,
mapping pid to its tile row by row: c is right, but the tiles are not visited in groups. The
launch names no GROUP_SIZE_M, so the judge asks for a grouped order of any height of 2 or more,
and a walk row by row is none."""

LOSES = ["grouped", "last_group"]
SAYS = "go row by row"
EDITS_OF = "tests/positives/t4_matmul/names_of_its_own.py"
EDITS = [
    (
        (
            "    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)\n"
            "    pid_n = (pid % num_pid_in_group) // group_size_m\n"
        ),
        "    pid_m = pid // num_pid_n\n    pid_n = pid % num_pid_n\n",
    ),
]
