"""Python's max() of two blocks: the interpreter compares them as wholes (a block's truth was
always true there), so max(x + y + 1, x + y) gave x + y; a GPU's compiler makes max() of blocks
their elementwise maximum, x + y + 1 everywhere. The reference, but for its store.

Scored 100/100 on the grader of commit 4c67950 (CPU interpreter), found in a review of this
issue's grader; a GPU computes every element wrong.
"""

ATTACK = "a kernel whose max() of blocks the interpreter and a GPU compute differently"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, max(x + y + 1.0, x + y), mask=mask)\n",
    ),
]
