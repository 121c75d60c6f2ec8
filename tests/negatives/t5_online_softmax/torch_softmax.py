"""Calls torch.softmax and launches nothing."""

LOSES = ["launches"]
SAYS = "uses torch.softmax"
MAX_SCORE = 0
EDITS = [
    (
        "    normalize_kernel[grid](\n",
        "    out.copy_(torch.softmax(x, dim=-1))\n    return out\n    normalize_kernel[grid](\n",
    ),
]
