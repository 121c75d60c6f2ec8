"""Allocates the whole seq_q x seq_k table of scores (a first, two-pass idea), though
the kernel keeps its blocks on chip."""

LOSES = ["memory"]
SAYS = "as large as the"
EDITS = [
    (
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
        "    scores = torch.empty(batch, n_heads, seq_q, seq_k, device=q.device)  # the mistake\n    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
    ),
]
