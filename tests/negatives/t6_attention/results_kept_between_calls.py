"""Keeps out and lse by shape and hands them out again when out= is not given: a caller's
first result is overwritten by its second call."""

LOSES = ["launches"]
SAYS = "handed out the same tensor twice"
EDITS = [
    (
        "    if out is None:\n        out = torch.empty(q.shape, dtype=q.dtype, device=q.device)\n"
        "    if lse is None:\n"
        "        lse = torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device)\n",
        "    key = (q.shape, q.dtype, q.device)\n"
        "    if key not in _RESULTS:  # the mistake: one pair of results per shape, reused\n"
        "        _RESULTS[key] = (\n"
        "            torch.empty(q.shape, dtype=q.dtype, device=q.device),\n"
        "            torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device),\n"
        "        )\n"
        "    if out is None:\n        out = _RESULTS[key][0]\n"
        "    if lse is None:\n        lse = _RESULTS[key][1]\n",
    ),
    ("LOG2_E = 1.4426950408889634\n", "LOG2_E = 1.4426950408889634\n_RESULTS = {}\n"),
]
