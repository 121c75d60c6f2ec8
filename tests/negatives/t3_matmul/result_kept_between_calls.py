"""Keeps one c per shape and hands it out again when out= is not given: a caller's first
product is overwritten by its second."""

LOSES = ["launches"]
SAYS = "handed out the same tensor twice"
EDITS = [
    (
        "    if out is None:\n"
        "        out = torch.empty((M, N), dtype=torch.float16, device=a.device)\n",
        "    if out is None:\n"
        "        if (M, N, a.device) not in _OUTPUTS:  # the mistake: one c per shape, reused\n"
        "            _OUTPUTS[M, N, a.device] = torch.empty((M, N), dtype=torch.float16, "
        "device=a.device)\n"
        "        out = _OUTPUTS[M, N, a.device]\n",
    ),
    (
        "BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32\n",
        "BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32\n_OUTPUTS = {}\n",
    ),
]
