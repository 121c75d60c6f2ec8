"""Allocates its own output as float32, the accumulator's dtype, when out= is not given: the
kernel then stores fp32 and returns c in fp32 instead of fp16."""

LOSES = ["launches"]
SAYS = "float16 tensor"
EDITS = [
    (
        "        out = torch.empty((M, N), dtype=torch.float16, device=a.device)\n",
        "        out = torch.empty((M, N), dtype=torch.float32, device=a.device)\n",
    ),
]
