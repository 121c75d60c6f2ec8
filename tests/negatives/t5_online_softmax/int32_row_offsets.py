"""Row offsets in int32: right until a row starts past 2^31 elements (a slice of a tensor of
4.3 GB of fp16)."""

LOSES = ["int64"]
SAYS = "2^31"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    x_row = x_ptr + row.to(tl.int64) * stride_x_row\n    out_row = out_ptr + row.to(tl.int64) * stride_out_row\n",
        "    x_row = x_ptr + row * stride_x_row\n    out_row = out_ptr + row * stride_out_row\n",
    ),
    (
        "    row_start = x_ptr + row.to(tl.int64) * stride_x_row\n",
        "    row_start = x_ptr + row * stride_x_row\n",
    ),
]
