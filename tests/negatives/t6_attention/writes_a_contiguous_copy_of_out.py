"""Makes out contiguous before the launch (out = out.contiguous()) and writes there: right for a
contiguous out, while a strided one is never written."""

LOSES = ["strides"]
SAYS = "wrote into a copy of `out`"
EDITS = [
    (
        "    if out.numel() == 0:\n        return out, lse\n",
        "    if out.numel() == 0:\n        return out, lse\n"
        "    out = out.contiguous()  # the mistake: a copy when out is strided\n",
    ),
]
