"""Loads the last block of k without its mask on the keys."""

LOSES = ["tails"]
SAYS = "outside `k`"
EDITS = [
    (
        "        mask=dim_in[:, None] & col_in[None, :],\n",
        "        mask=dim_in[:, None],  # the mistake: keys past seq_k are read\n",
    ),
]
