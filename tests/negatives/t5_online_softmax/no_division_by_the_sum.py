"""Stores exp(x - max) and never divides by the row's sum: each row's largest value comes out
as 1."""

LOSES = ["softmax"]
SAYS = "exp(x_i - m) / s"
EDITS = [
    (
        "        y = tl.exp(x - row_max) / row_sum\n",
        "        y = tl.exp(x - row_max)\n",
    ),
]
