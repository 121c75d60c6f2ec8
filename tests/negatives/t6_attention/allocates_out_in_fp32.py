"""Allocates out in fp32 whatever q's dtype."""

LOSES = ["launches"]
SAYS = "expected a new"
EDITS = [
    (
        "        out = torch.empty(q.shape, dtype=q.dtype, device=q.device)\n",
        "        out = torch.empty(q.shape, dtype=torch.float32, device=q.device)\n",
    ),
]
