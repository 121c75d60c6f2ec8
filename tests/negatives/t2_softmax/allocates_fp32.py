"""Allocates its own output as float32 whatever x's dtype, when out= is not given."""

LOSES = ["launches"]
SAYS = "float16 tensor"
EDITS = [
    (
        "        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n",
        "        out = torch.empty(x.shape, device=x.device)\n",
    ),
]
