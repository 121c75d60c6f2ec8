"""Row and column indices in int32, as Triton's tutorial writes them: right until a row of a
(or of w, or of out) starts past 2^31 elements, where offs_am * stride_am wraps negative."""

LOSES = ["int64"]
SAYS = "2^31"
# rows 2^30 elements apart: the CPU interpreter runs no such case
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    offs_am = pid_m.to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # [BLOCK_SIZE_M]\n    offs_bn = pid_n.to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # [BLOCK_SIZE_N]\n",
        "    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # [BLOCK_SIZE_M]\n    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # [BLOCK_SIZE_N]\n",
    ),
]
