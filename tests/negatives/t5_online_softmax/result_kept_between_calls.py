"""Keeps one output per shape and hands it out again when out= is not given: `y1 = softmax(x1);
y2 = softmax(x2)` leaves y1 holding softmax(x2)."""

LOSES = ["launches"]
SAYS = "handed out the same tensor twice"
EDITS = [
    (
        "    if out is None:\n        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n",
        "    if out is None:\n"
        "        key = (x.shape, x.dtype, x.device)\n"
        "        if key not in _OUTPUTS:  # the mistake: one output per shape, reused\n"
        "            _OUTPUTS[key] = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
        "        out = _OUTPUTS[key]\n",
    ),
    ("PROGRAMS = 1024\n", "PROGRAMS = 1024\n_OUTPUTS = {}\n"),
]
