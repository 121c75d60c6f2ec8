"""Rounds p to fp16 for the second tl.dot, whatever v's dtype: right for fp16 inputs, and no
kernel at all for bf16 ones, since tl.dot takes two operands of one dtype. The interpreter has
no bf16 to run, but the judge still records the bf16 calls and compiles their launches."""

LOSES = ["dtypes", "launches"]
SAYS = "Both operands must be same dtype"
EDITS = [
    (
        "        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])\n",
        "        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])  # the mistake: v's dtype\n",
    ),
]
