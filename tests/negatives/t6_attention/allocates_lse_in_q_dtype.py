"""Allocates lse in q's dtype, not fp32."""

LOSES = ["launches"]
SAYS = "as `lse`"
EDITS = [
    (
        "        lse = torch.empty((batch, n_heads, seq_q), dtype=torch.float32, device=q.device)\n",
        "        lse = torch.empty((batch, n_heads, seq_q), dtype=q.dtype, device=q.device)\n",
    ),
]
