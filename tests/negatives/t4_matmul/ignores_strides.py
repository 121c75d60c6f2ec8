"""Passes strides as if every operand were row-major and contiguous. (The kernel is the
reference's: only the launch is wrong.)"""

LOSES = ["strides"]
SAYS = "strides"
EDITS = [
    (
        "        a.stride(0),\n        a.stride(1),\n        b.stride(0),\n        b.stride(1),\n        out.stride(0),\n        out.stride(1),\n",
        "        K,\n        1,\n        N,\n        1,\n        N,\n        1,\n",
    ),
]
