"""Allocates its own output without device=, so on the CPU whatever x's device: right on the
interpreter, where every tensor is on the CPU; on a GPU the kernel is handed a CPU tensor."""

LOSES = ["allocates"]
SAYS = "cpu"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "        out = torch.empty_like(x)\n",
        "        out = torch.empty(x.shape, dtype=x.dtype)\n",
    ),
]
