"""Adds the bias and applies GELU inside the K loop, to every partial sum: right only when K fits
in one step."""

LOSES = ["multiplies"]
SAYS = "not in the loop"
EDITS = [
    (
        "        acc = tl.dot(a, b, acc)\n",
        "        acc = tl.dot(a, b, acc)\n        if bias_ptr is not None:\n            bias = tl.load(bias_ptr + offs_bn, mask=offs_bn < N, other=0.0)\n            acc = gelu(acc + bias.to(tl.float32)[None, :])\n",
    ),
    (
        "    # epilogue: the tile is in registers, so fused work costs no memory traffic\n    if bias_ptr is not None:\n        bias = tl.load(bias_ptr + offs_bn, mask=offs_bn < N, other=0.0)\n        acc = gelu(acc + bias.to(tl.float32)[None, :])\n",
        "",
    ),
]
