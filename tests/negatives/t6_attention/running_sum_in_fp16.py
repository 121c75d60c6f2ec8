"""Keeps the running sum in fp16: right over a thousand keys, and inf past 65504 of them, where
every row's sum of p (each near 1 when the scores are near 0) passes fp16's largest value."""

LOSES = ["dtypes"]
SAYS = "the running sum passed fp16's largest and went to inf"
EDITS = [
    (
        "    running_sum = tl.zeros([BLOCK_M], dtype=tl.float32)\n",
        "    running_sum = tl.zeros([BLOCK_M], dtype=tl.float16)  # the mistake: sums pass 65504\n",
    ),
    (
        "        running_sum = running_sum * alpha + tl.sum(p, axis=1)\n",
        "        running_sum = (running_sum * alpha + tl.sum(p, axis=1)).to(tl.float16)\n",
    ),
    (
        "    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634\n",
        "    lse = (running_max + tl.math.log2(running_sum.to(tl.float32))) / 1.4426950408889634\n",
    ),
]
