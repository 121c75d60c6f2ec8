"""Adds x to itself, and launches at least 20,001 programs whatever n is, so that every case is
too large for the interpreter: where most of a check's cases could not run, the check fails
on the CPU (else such a grid would pass untested); a GPU runs them and sees the wrong sums."""

LOSES = ["adds", "tail", "tiny"]
SAYS = "most cases of this check could not run on the CPU"
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
