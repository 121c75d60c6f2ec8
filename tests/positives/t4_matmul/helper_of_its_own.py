"""Correct, written differently: the reference with a `grouped_tile` of its own signature,
grouped_tile(pid, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M), which counts the tiles itself,
as library kernels' helpers often do. The judge's probe calls grouped_tile(pid, num_pid_m,
num_pid_n, GROUP_SIZE_M) and cannot call this one: its cases are not run, and the order is
judged from the kernel's own stores. Before, the probe failed to compile and the file lost 20."""

EDITS = [
    (
        'def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):\n    """The (pid_m, pid_n) tile of program `pid`: groups of GROUP_SIZE_M rows of tiles, each\n    walked column by column, so consecutive programs share their columns of B."""\n',
        'def grouped_tile(\n    pid, M, N, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, GROUP_SIZE_M: tl.constexpr\n):\n    """The (pid_m, pid_n) tile of program `pid`: groups of GROUP_SIZE_M rows of tiles, each\n    walked column by column, so consecutive programs share their columns of B."""\n    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)\n    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)\n',
    ),
    (
        "    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)\n    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)\n    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)\n",
        "    pid_m, pid_n = grouped_tile(pid, M, N, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)\n",
    ),
]
