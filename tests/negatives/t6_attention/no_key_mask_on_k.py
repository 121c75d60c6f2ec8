"""Loads the last block of k without its mask on the keys."""

LOSES = ["inside"]  # on a GPU, only the case whose k ends where mapped memory ends sees it
SAYS = "outside `k`"
EDITS = [
    (
        "        mask=dim_in[:, None] & col_in[None, :],\n",
        "        mask=dim_in[:, None],  # the mistake: keys past seq_k are read\n",
    ),
]
