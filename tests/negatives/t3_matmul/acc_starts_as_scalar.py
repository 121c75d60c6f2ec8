"""Starts the accumulator as the scalar 0.0 and adds each step's tl.dot to it: right on the
interpreter, which runs Python; the GPU compiler refuses a loop variable that changes from a
scalar to a block."""

LOSES = ["compiles"]
SAYS = "starts as a scalar"
RUNTIMES = ["interpreter"]
EDITS = [
    (
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n",
        "    acc = 0.0  # the mistake: one number, which the first step makes a block\n",
    ),
    (
        "        acc = tl.dot(a, b, acc)\n",
        "        acc += tl.dot(a, b)\n",
    ),
]
