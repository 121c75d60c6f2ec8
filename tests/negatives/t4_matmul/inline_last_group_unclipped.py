"""Triton's tutorial 03, with no grouped_tile helper, giving the last group GROUP_SIZE_M rows
like the others: where the rows of tiles are not a multiple of GROUP_SIZE_M, programs land on
tiles past the last row and some tiles get none."""

LOSES = ["last_group"]
SAYS = "min(num_pid_m - first_pid_m, GROUP_SIZE_M)"
EDITS_OF = "tests/positives/t4_matmul/tutorial_03.py"
EDITS = [
    (
        "    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)\n",
        "    group_size_m = GROUP_SIZE_M\n",
    ),
]
