"""Masks only M and N in the loads: the last K step reads past the end of K."""

LOSES = ["k_tail"]
SAYS = "K"
EDITS = [
    (
        "        a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)\n        b_mask = (offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N)\n",
        "        a_mask = offs_am[:, None] < M\n        b_mask = offs_bn[None, :] < N\n",
    ),
]
