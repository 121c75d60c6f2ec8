"""Row and column indices in int32: right until a has 2^31 elements, where rows * K wraps
negative for its last rows (4.3 GB of fp16)."""

LOSES = ["int64"]
SAYS = "2^31"
# 2^31 elements: the CPU interpreter runs no such case
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    # int64 indices, so that rows * K (in a) and rows * N (in c) cannot wrap to a negative offset\n    # once a or c holds 2^31 elements (4 GB of fp16). ks stays int32: an int64 ks makes ks * N\n    # 64-bit work in every step of the K loop, and it wraps only once b holds 2^31 elements\n    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # [BLOCK_M]\n",
        "    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # [BLOCK_M]\n",
    ),
    (
        "    cols = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)  # [BLOCK_N]\n",
        "    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)  # [BLOCK_N]\n",
    ),
]
