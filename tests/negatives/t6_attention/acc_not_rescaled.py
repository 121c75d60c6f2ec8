"""The accumulator keeps what it gathered under an older, smaller max: right while the
keys fit one block."""

LOSES = ["attends", "tails"]
SAYS = "accumulator was not rescaled"
EDITS = [
    (
        "        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])\n",
        "        acc = tl.dot(p.to(v.dtype), v, acc)  # the mistake: acc is not rescaled\n",
    ),
]
