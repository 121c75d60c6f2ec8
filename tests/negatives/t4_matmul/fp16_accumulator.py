"""Accumulates in fp16 through tl.dot(a, b, acc)."""

LOSES = ["fp32"]
SAYS = "float32"
# before 3.8 the interpreter refuses the fp16 acc, as a GPU does (an AssertionError without
# words); from 3.8 it runs it, and the values show the rounding
TRITON_CHANGES_AT = "3.8"
EDITS = [
    (
        "    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)\n",
        "    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)\n",
    ),
]
