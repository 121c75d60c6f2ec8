"""Row and column offsets in int32, as Triton's tutorial writes them: right until a row of a (or
of w, or of out) starts past 2^31 elements, where offs_am * stride_am wraps negative."""

LOSES = ["int64"]
SAYS = "2^31"
# rows 2^30 elements apart: the CPU interpreter runs no such case
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    rows, cols = offs_am.to(tl.int64), offs_bn.to(tl.int64)\n",
        "    rows, cols = offs_am, offs_bn\n",
    ),
]
