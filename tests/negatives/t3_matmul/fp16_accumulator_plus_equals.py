"""Starts an fp16 accumulator and adds tl.dot(a, b) to it: the interpreter quietly promotes it to fp32, a GPU compiler refuses the loop."""

LOSES = ["compiles"]
SAYS = "float32"
EDITS = [
    (
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n",
        "    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)\n",
    ),
    (
        "        acc = tl.dot(a, b, acc)\n",
        "        acc += tl.dot(a, b)\n",
    ),
]
