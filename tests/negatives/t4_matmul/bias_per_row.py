"""The optional epilogue adds bias[offs_am], one value per row of c, where the bias belongs to
the columns (one value per output feature). matmul itself is the reference's."""

LOSES = ["multiplies"]
SAYS = "bias[offs_bn]"
EDITS = [
    (
        "        bias = tl.load(bias_ptr + offs_bn, mask=offs_bn < N, other=0.0)\n        acc = gelu(acc + bias.to(tl.float32)[None, :])\n",
        "        bias = tl.load(bias_ptr + offs_am, mask=offs_am < N, other=0.0)\n        acc = gelu(acc + bias.to(tl.float32)[:, None])\n",
    ),
]
