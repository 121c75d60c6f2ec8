"""Row offsets in int32, rows * stride as the tutorial writes them: right until a row starts past
2^31 elements, where the offset wraps negative (a slice of a tensor of 4.3 GB of fp16)."""

LOSES = ["int64"]
SAYS = "2^31"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    # int64 row offsets: rows * stride passes 2^31 for large tensors\n    x_ptrs = x_ptr + rows[:, None].to(tl.int64) * stride_x_row + cols[None, :]\n",
        "    x_ptrs = x_ptr + rows[:, None] * stride_x_row + cols[None, :]\n",
    ),
    (
        "    out_ptrs = out_ptr + rows[:, None].to(tl.int64) * stride_out_row + cols[None, :]\n",
        "    out_ptrs = out_ptr + rows[:, None] * stride_out_row + cols[None, :]\n",
    ),
]
