"""The optional epilogue applies GELU to the product first and adds the bias after it, so the
bias shifts the output instead of the activation's input. matmul itself is the reference's."""

LOSES = ["multiplies"]
SAYS = "bias[offs_bn]"
EDITS = [
    (
        "        acc = gelu(acc + bias.to(tl.float32)[None, :])\n",
        "        acc = gelu(acc) + bias.to(tl.float32)[None, :]\n",
    ),
]
