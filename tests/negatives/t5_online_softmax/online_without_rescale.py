"""An online softmax whose running sum is never rescaled when the running max grows. Right
while each part's max lies in its first block."""

LOSES = ["rescale"]
SAYS = "multiply the sum by exp(m_old - m_new)"
EDITS = [
    (
        "        running_sum = running_sum * tl.exp(running_max - new_max) + tl.sum(\n            tl.exp(x - new_max), axis=0\n        )\n",
        "        # the mistake: what was summed under the old max is kept as it was\n        running_sum = running_sum + tl.sum(tl.exp(x - new_max), axis=0)\n",
    ),
]
