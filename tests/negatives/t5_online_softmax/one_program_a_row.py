"""Ignores parts: one program a row, always. Its values are right; the row is never split."""

LOSES = ["combine"]
SAYS = "must be shared by"
EDITS = [
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        "    parts = 1  # the mistake: the argument is ignored\n",
    ),
]
