"""Reads bias[j] at j * stride_cn, c's column stride: right while c is row-major (a stride of 1),
past bias's end for out = buf.t()."""

LOSES = ["multiplies"]
SAYS = "outside `bias`"
EDITS = [
    (
        "        bias = tl.load(bias_ptr + offs_bn, mask=offs_bn < N, other=0.0)\n",
        "        bias = tl.load(bias_ptr + offs_bn * stride_cn, mask=offs_bn < N, other=0.0)\n",
    ),
]
