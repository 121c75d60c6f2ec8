"""Allocates out and lse together whenever either is missing: `attention(q, k, v, out=buf)`
writes a new out and never touches buf."""

LOSES = ["launches"]
SAYS = "no kernel launch was given the output tensor `out`"
EDITS = [
    (
        "    if out is None:\n"
        "        out = torch.empty(q.shape, dtype=q.dtype, device=q.device)\n"
        "    if lse is None:\n"
        "        lse = torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device)\n",
        "    if out is None or lse is None:\n"
        "        out = torch.empty(q.shape, dtype=q.dtype, device=q.device)\n"
        "        lse = torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device)\n",
    ),
]
