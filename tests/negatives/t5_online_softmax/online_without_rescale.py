"""An online softmax whose running sum is never rescaled when the running max grows. Right
while each part's max lies in its first block."""

LOSES = ["rescale"]
SAYS = "multiply the sum by exp(m_old - m_new)"
EDITS = [
    (
        "        running_sum = running_sum * tl.exp(running_max - shift) + tl.sum(tl.exp(x - shift), axis=0)\n",
        "        # the mistake: what was summed under the old max is kept as it was\n        running_sum = running_sum + tl.sum(tl.exp(x - shift), axis=0)\n",
    ),
]
