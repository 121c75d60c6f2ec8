"""The textbook offsets, pid * BLOCK_SIZE in int32: past 2^31 elements they wrap negative."""

LOSES = ["int64"]
SAYS = "2^31"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    # pid is int32: in int64, block starts past 2^31 elements do not wrap around\n    block_start = pid.to(tl.int64) * BLOCK_SIZE\n",
        "    block_start = pid * BLOCK_SIZE\n",
    ),
]
