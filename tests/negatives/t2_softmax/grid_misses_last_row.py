"""Launches one program too few: the rows of the last program are never written."""

LOSES = ["rows"]
SAYS = "never written"
EDITS = [
    (
        "    grid = (triton.cdiv(n_rows, ROWS_PER_PROGRAM),)\n",
        "    grid = (max(triton.cdiv(n_rows, ROWS_PER_PROGRAM) - 1, 1),)\n",
    ),
]
