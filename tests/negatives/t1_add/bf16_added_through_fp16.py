"""Adds bf16 inputs in fp16, as code written before GPUs had bf16 did: right for values fp16
holds, but bf16 has fp32's range, and a sum past fp16's largest value (65504) becomes inf."""

LOSES = ["dtypes"]
SAYS = "inf"
# the interpreter has no bf16
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    y = tl.load(y_ptr + offs, mask=mask)\n",
        (
            "    y = tl.load(y_ptr + offs, mask=mask)\n"
            "    if x.dtype == tl.bfloat16:\n"
            "        x, y = x.to(tl.float16), y.to(tl.float16)\n"
        ),
    ),
]
