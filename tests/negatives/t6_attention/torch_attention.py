"""Calls torch's scaled_dot_product_attention and launches nothing."""

LOSES = ["launches"]
SAYS = "no Triton kernel was launched"
MAX_SCORE = 0
EDITS = [
    (
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
        "    s = (q.float() @ k.float().transpose(-1, -2)) * scale\n    out.copy_(torch.softmax(s, dim=-1).to(q.dtype) @ v)\n    lse.copy_(torch.logsumexp(s, dim=-1))\n    return out, lse\n    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
    ),
]
