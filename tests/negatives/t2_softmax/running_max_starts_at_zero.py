"""An online softmax over blocks of up to 4096 columns, rescaled as it should be, whose running max
starts at 0 instead of -inf: right for every row whose max is above 0, but in a row far below 0
the max stays 0, every exp() underflows to 0, and 0 / 0 is NaN."""

LOSES = ["padding"]
SAYS = "start a running max at -inf"
EDITS_OF = "tests/negatives/t2_softmax/online_without_rescale.py"
EDITS = [
    (
        '    running_max = -float("inf")\n',
        "    running_max = 0.0  # the mistake: -inf, so that the row's own values set it\n",
    ),
    (
        "        running_max = tl.maximum(running_max, tl.max(x.to(tl.float32), axis=0))\n"
        "        # the mistake: what was summed under the old max is not multiplied by\n"
        "        # exp(old_max - running_max)\n"
        "        running_sum += tl.sum(tl.exp(x.to(tl.float32) - running_max), axis=0)\n",
        "        new_max = tl.maximum(running_max, tl.max(x.to(tl.float32), axis=0))\n"
        "        running_sum = running_sum * tl.exp(running_max - new_max) + tl.sum(\n"
        "            tl.exp(x.to(tl.float32) - new_max), axis=0\n"
        "        )\n"
        "        running_max = new_max\n",
    ),
]
