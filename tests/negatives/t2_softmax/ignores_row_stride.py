"""Assumes rows are n_cols apart in x and in out."""

LOSES = ["strides"]
SAYS = "stride"
EDITS = [
    (
        "        x.stride(0),\n        out.stride(0),\n",
        "        n_cols,\n        n_cols,\n",
    ),
]
