"""Treats scale=0.0 as "none given" (scale or 1 / sqrt(head_dim)): right for every other scale."""

LOSES = ["scale"]
SAYS = "scale"
EDITS = [
    (
        "    if scale is None:\n        scale = 1.0 / math.sqrt(head_dim)\n",
        "    scale = scale or 1.0 / math.sqrt(head_dim)  # the mistake: 0.0 is a scale\n",
    ),
]
