"""Assumes rows are n_cols apart in x and in out."""

LOSES = ["follows the row strides of x and out (rows of a wider tensor)"]
SAYS = "stride"
EDITS = [
    (
        "        x.stride(0),\n        out.stride(0),\n",
        "        n_cols,\n        n_cols,\n",
    ),
]
