"""Takes a new output to be laid out like x and gives the kernel x's row stride for it: right
when out= is given, or x is contiguous, but a new contiguous out written with the row stride of
a slice of a wider tensor lands its rows in the wrong places, past its end."""

LOSES = ["launches"]
SAYS = "each tensor's own row stride"
EDITS = [
    (
        "    if out is None:\n        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n",
        (
            "    # a new out is laid out like x\n"
            "    stride_out_row = x.stride(0) if out is None else out.stride(0)\n"
            "    if out is None:\n        out = torch.empty_like(x)\n"
        ),
    ),
    (
        "        out.stride(0),\n",
        "        stride_out_row,\n",
    ),
]
