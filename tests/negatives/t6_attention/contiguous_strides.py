"""Strides computed from the shapes, as if every tensor were contiguous."""

LOSES = ["strides"]
SAYS = "own strides"
EDITS = [
    (
        "        *q.stride()[:3],\n",
        "        seq_q * n_heads * head_dim,  # the mistake: q's strides as if contiguous\n        seq_q * head_dim,\n        head_dim,\n",
    ),
]
