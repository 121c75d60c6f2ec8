"""causal=True reaches the kernel as False: every query sees every key."""

LOSES = ["causal"]
SAYS = "every query saw every key"
EDITS = [
    (
        "        CAUSAL=causal,\n",
        "        CAUSAL=False,  # the mistake: the mask is never applied\n",
    ),
]
