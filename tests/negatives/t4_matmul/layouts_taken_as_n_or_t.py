"""Takes each operand as row-major or transposed, as cuBLAS's N and T flags do: an operand whose
column stride is not 1 is read as a transposed view (a row stride of 1), so every other column
of a wider tensor (u[:, ::2]) is read wrong."""

LOSES = ["strides"]
SAYS = "in the gaps between columns"
EDITS = [
    (
        "        a.stride(0),\n        a.stride(1),\n        b.stride(0),\n        b.stride(1),\n",
        "        *((a.stride(0), 1) if a.stride(1) == 1 else (1, a.stride(1))),\n"
        "        *((b.stride(0), 1) if b.stride(1) == 1 else (1, b.stride(1))),\n",
    ),
]
