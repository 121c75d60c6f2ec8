"""The default scale comes from the padded BLOCK_D, not from head_dim: right for powers of
two."""

LOSES = ["scale", "head_dim"]
SAYS = "padded BLOCK_D"
EDITS = [
    (
        "        scale = 1.0 / math.sqrt(head_dim)\n",
        "        scale = 1.0 / math.sqrt(max(16, triton.next_power_of_2(head_dim)))\n",
    ),
]
