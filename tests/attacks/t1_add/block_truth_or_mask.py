"""`mask or wider` of two blocks: the interpreter took any block as true, so the `or` gave the
first mask and the store stayed in bounds there; a GPU's compiler makes `or` of blocks
elementwise, and the store writes up to 4096 elements past the end of `out`. The reference, but
for its store.

Scored 100/100 on the grader of commit 4c67950 (CPU interpreter), found in a review of this
issue's grader.
"""

ATTACK = "a mask whose `or` of blocks the interpreter and a GPU compute differently"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y, mask=mask or (offs < n_elements + 4096))\n",
    ),
]
