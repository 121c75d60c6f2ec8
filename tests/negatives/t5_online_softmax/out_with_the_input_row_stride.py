"""The output's rows are addressed with x's row stride: right while both are contiguous."""

LOSES = ["strides"]
SAYS = "(`x`'s row stride)"
EDITS = [
    (
        "    out_row = out_ptr + row.to(tl.int64) * stride_out_row\n",
        "    out_row = out_ptr + row.to(tl.int64) * stride_x_row\n",
    ),
]
