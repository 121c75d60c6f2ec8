"""Allocates the result in fp32 whatever x's dtype: right for fp32 inputs only."""

LOSES = ["launches"]
SAYS = "float16 tensor"
EDITS = [
    (
        "        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n",
        "        out = torch.empty(x.shape, dtype=torch.float32, device=x.device)\n",
    ),
]
