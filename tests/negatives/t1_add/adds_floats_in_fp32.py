"""Adds every float dtype in fp32: right for fp16, bf16 and fp32, which fp32 holds, but fp64's
53 bits of mantissa are cut to fp32's 24."""

LOSES = ["dtypes"]
SAYS = "fp64 values to fp32's 24 bits"
EDITS = [
    (
        "    y = tl.load(y_ptr + offs, mask=mask)\n",
        "    y = tl.load(y_ptr + offs, mask=mask)\n"
        "    if x.dtype.is_floating():\n"
        "        x, y = x.to(tl.float32), y.to(tl.float32)\n",
    ),
]
