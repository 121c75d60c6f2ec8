"""A helper reads a module-level float that is not a tl.constexpr: the interpreter runs it as
Python, the GPU compiler refuses it, in the helper, which triton reports from the line of the
kernel that calls it."""

LOSES = ["softmax"]
SAYS = "Cannot access global variable LOG2E"
EDITS_OF = "tests/positives/t5_online_softmax/one_program_per_row_fused.py"
EDITS = [
    (
        "LOG2E = tl.constexpr(1.4426950408889634)  # a global a kernel may read\n",
        "LOG2E = 1.4426950408889634  # the mistake: a plain float\n",
    ),
]
