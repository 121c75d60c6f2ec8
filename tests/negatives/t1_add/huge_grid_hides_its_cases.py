"""Adds x to itself, and launches at least 20,001 programs whatever n is, so that every case is
too large for the interpreter: such a case fails on the CPU, since the file would otherwise
choose which of its cases the CPU runs (only a case marked large may be left to a GPU); a GPU
runs them and sees the wrong sums."""

LOSES = ["adds", "tail", "tiny"]
SAYS = "more than the interpreter runs in a case's time"
SAYS_ON_GPU = "wrong values"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + x, mask=mask)\n",
    ),
    (
        "    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)\n",
        "    grid = (max(triton.cdiv(n_elements, BLOCK_SIZE), 20_001),)\n",
    ),
]
