"""Allocates its own output as float32 whatever the inputs are, when out= is not given."""

LOSES = ["allocates"]
SAYS = "expected a new (1000,) float16 tensor"
EDITS = [
    (
        "        out = torch.empty_like(x)\n",
        "        out = torch.empty(x.shape, device=x.device)\n",
    ),
]
