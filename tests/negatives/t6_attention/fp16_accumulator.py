"""Accumulates p @ v in fp16: past 65504 the output overflows."""

LOSES = ["dtypes"]
SAYS = "accumulator, which sums p @ v"
EDITS = [
    (
        "    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)\n",
        "    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float16)\n",
    ),
    (
        "        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])\n",
        "        acc = (acc * alpha[:, None]).to(tl.float16) + tl.dot(p.to(v.dtype), v, out_dtype=tl.float16)\n",
    ),
]
