"""Keeps one output per shape and hands it out again when out= is not given: `a = add(x, y);
b = add(u, v)` leaves a holding u + v."""

LOSES = ["allocates"]
SAYS = "handed out the same tensor twice"
EDITS = [
    (
        "    if out is None:\n        out = torch.empty_like(x)\n",
        "    if out is None:\n"
        "        key = (x.shape, x.dtype, x.device)\n"
        "        if key not in _OUTPUTS:  # the mistake: one output per shape, reused\n"
        "            _OUTPUTS[key] = torch.empty_like(x)\n"
        "        out = _OUTPUTS[key]\n",
    ),
    ("def add(x: torch.Tensor", "_OUTPUTS = {}\n\n\ndef add(x: torch.Tensor"),
]
