"""Stores c's rows K elements apart, a's row length, instead of N: right only where K == N;
with K < N the rows overlap and programs store over each other's tiles."""

LOSES = ["multiplies", "k_tail", "edges", "row_lengths"]
SAYS = "if its row stride were"
EDITS = [
    (
        "    c_ptrs = c_ptr + rows[:, None] * N + cols[None, :]\n",
        "    c_ptrs = c_ptr + rows[:, None] * K + cols[None, :]\n",
    ),
]
