"""T4's grouped program order computed in plain Python on the interpreter: `.handle.data` of a
block is a numpy array, so grouped_tile reads the pid and the grid's size with `.item()`,
computes the tile with Python's integers and writes it back into the blocks it returns. No
Triton arithmetic decides the order; the rest is the reference.

Scored 60/100 on the grader of commit 4c67950 (CPU interpreter, default mode): every check but the
grid's, the grouped order's and the compile check's, for a kernel no GPU compiles.
"""

ATTACK = "the grouped order in Python on the interpreter's values"
LAYER = "kernels"

EDITS = [
    (
        (
            "    num_pid_in_group = GROUP_SIZE_M * num_pid_n\n"
            "    group_id = pid // num_pid_in_group\n"
            "    first_pid_m = group_id * GROUP_SIZE_M\n"
            "    # the last group is shorter when num_pid_m is not a multiple of GROUP_SIZE_M\n"
            "    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)\n"
            "    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m\n"
            "    pid_n = (pid % num_pid_in_group) // group_size_m\n"
            "    return pid_m, pid_n\n"
        ),
        (
            "    # the grouped order in plain Python on the interpreter's numbers: .item() of a\n"
            "    # block's numpy array, then written back into the blocks it returns\n"
            "    p, m, n = (v.handle.data.item() for v in (pid, num_pid_m, num_pid_n))\n"
            "    group = GROUP_SIZE_M * n\n"
            "    first = p // group * GROUP_SIZE_M\n"
            "    size = min(m - first, GROUP_SIZE_M)\n"
            "    pid.handle.data[...] = first + p % group % size\n"
            "    num_pid_m.handle.data[...] = p % group // size\n"
            "    return pid, num_pid_m\n"
        ),
    ),
]
