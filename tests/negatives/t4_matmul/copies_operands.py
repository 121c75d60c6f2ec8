"""Copies a transposed or sliced operand into a contiguous one with torch, then runs a correct
kernel on the copy: right values, but the strides are never used, and the copy costs a pass
over memory (the point of T4's strided pointer blocks is to read w.t() where it lies)."""

LOSES = ["strides"]
SAYS = "torch copied a tensor outside the kernel"
MAX_SCORE = 85
EDITS = [
    (
        "    M, K = a.shape\n",
        "    a, b = a.contiguous(), b.contiguous()\n    M, K = a.shape\n",
    ),
]
