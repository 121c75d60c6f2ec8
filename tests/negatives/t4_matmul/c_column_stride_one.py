"""Stores c as if its column stride were 1: right for every row-major out=, wrong for out =
buf.t()."""

LOSES = ["strides"]
SAYS = "if its column stride were 1"
EDITS = [
    (
        "    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn\n",
        "    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :]\n",
    ),
]
