"""Passes bias to the kernel as it comes, without .contiguous(), while the kernel reads
bias[offs_bn] as if its values lay next to each other: right for a contiguous bias, wrong for
a strided one (every other value of a longer tensor, a column of a matrix)."""

LOSES = ["multiplies"]
SAYS = "read it through its stride"
EDITS = [
    (
        "    return launch(a, b, out, bias=bias.contiguous())\n",
        "    return launch(a, b, out, bias=bias)\n",
    ),
]
