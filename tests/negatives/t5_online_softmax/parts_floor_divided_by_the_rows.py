"""Shares PROGRAMS among the rows by floor division, without taking at least one: past 1024
rows a row gets 0 parts and the host divides by zero."""

LOSES = ["softmax"]
SAYS = "ZeroDivisionError"
EDITS = [
    (
        "    return max(1, min(triton.cdiv(PROGRAMS, n_rows), triton.cdiv(n_cols, BLOCK_SIZE)))\n",
        "    return min(PROGRAMS // n_rows, triton.cdiv(n_cols, BLOCK_SIZE))\n",
    ),
]
