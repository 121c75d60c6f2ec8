"""Splits each row into at least as many parts as its own rule picks, even when the caller gave
fewer: the values are right, but softmax(x, parts=2) must launch (n_rows, 2) programs."""

LOSES = ["combine"]
SAYS = "A given parts is the caller's choice"
EDITS = [
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        "    parts = max(parts or 1, parts_for(n_rows, n_cols))  # the mistake: parts was given\n",
    ),
]
