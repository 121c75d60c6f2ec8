"""The running sum keeps what it added under an older, smaller max."""

LOSES = ["attends", "tails"]
SAYS = "running sum was not rescaled"
EDITS = [
    (
        "        running_sum = running_sum * alpha + tl.sum(p, axis=1)\n",
        "        running_sum = running_sum + tl.sum(p, axis=1)  # the mistake: no rescale\n",
    ),
]
