"""Masks the head dimension to BLOCK_D, not head_dim: right for powers of two."""

LOSES = ["head_dim"]
SAYS = "mask dims < head_dim"
EDITS = [
    (
        "    dim_in = dims < head_dim\n",
        "    dim_in = dims < BLOCK_D  # the mistake: head_dim may be smaller\n",
    ),
]
