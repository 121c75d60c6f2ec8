"""Replaces the caller's -inf in x by the dtype's lowest finite value, in place, before the
launch (to keep -inf - (-inf) out of the kernels): the result is right, and the caller's x is
changed."""

LOSES = ["softmax"]
SAYS = "the host code wrote into the input `x` (torch's masked_fill_"
EDITS = [
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        "    # keep -inf out of the kernels (the mistake: in place, in the caller's x)\n"
        '    x.masked_fill_(x == -float("inf"), torch.finfo(x.dtype).min)\n'
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
    ),
]
