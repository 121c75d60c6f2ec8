"""Triton's tutorial 03, with no grouped_tile helper, mapping pid to its tile row by row
instead of in groups: c is right, but the order of tiles the drill is about is not kept. With
no helper to probe, only the kernel's own stores show it."""

LOSES = ["grouped"]
SAYS = "does not visit its tiles in grouped order"
EDITS_OF = "tests/positives/t4_matmul/tutorial_03.py"
EDITS = [
    (
        (
            "    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)\n"
            "    pid_n = (pid % num_pid_in_group) // group_size_m\n"
        ),
        "    pid_m = pid // num_pid_n\n    pid_n = pid % num_pid_n\n",
    ),
]
