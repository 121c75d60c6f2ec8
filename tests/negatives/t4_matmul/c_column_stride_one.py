"""Stores c as if its column stride were 1: right for every row-major out=, wrong for out =
buf.t()."""

LOSES = ["strides"]
SAYS = "if its column stride were 1"
EDITS = [
    (
        "    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn\n",
        "    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :]\n",
    ),
]
