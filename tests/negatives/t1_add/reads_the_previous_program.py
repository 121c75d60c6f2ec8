"""Each program reads the block of out that the program before it stored, and adds back what it
subtracts: right where the programs run one after another, in order, as the interpreter ran
them; on a GPU they run at once, and the first wave reads the judge's NaN fill.

It scored 100/100 on the grader of commit 1cc173a (CPU interpreter), found in a review of it:
the interpreter ran the programs in order. It now runs them in an order drawn afresh at every
launch, so the canary a program reads from a block not yet stored reaches its result. The
judge runs the record again: on the interpreter the result changes from run to run, on a GPU
with what `out` held before the call; either message says the programs race. A launch of one
program has no race: the tiny sizes pass.
"""

LOSES = ["adds"]
SAYS = "programs race"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    back = mask & (pid > 0)\n"
            "    prev = tl.load(out_ptr + offs - BLOCK_SIZE, mask=back, other=0)\n"
            "    px = tl.load(x_ptr + offs - BLOCK_SIZE, mask=back, other=0)\n"
            "    py = tl.load(y_ptr + offs - BLOCK_SIZE, mask=back, other=0)\n"
            "    tl.store(out_ptr + offs, (prev - (px + py)) + (x + y), mask=mask)\n"
        ),
    ),
]
