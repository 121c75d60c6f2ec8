"""One row a program, and the grid capped at 65535 programs, a limit CUDA puts on a grid's y and
z axes but not on x (2^31 - 1 there): the rows past the 65535th are never written. Only a GPU
runs a case with that many rows."""

LOSES = ["rows"]
SAYS = "the grid launched only 65535"
RUNTIMES = ["gpu"]
EDITS = [
    ("    ROWS_PER_PROGRAM = max(1, 1024 // BLOCK_SIZE)\n", "    ROWS_PER_PROGRAM = 1\n"),
    (
        "    grid = (triton.cdiv(n_rows, ROWS_PER_PROGRAM),)\n",
        "    grid = (min(triton.cdiv(n_rows, ROWS_PER_PROGRAM), 65535),)\n",
    ),
]
