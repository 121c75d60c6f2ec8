"""Correct, written differently: builtins under module-level names of their own (exp = tl.exp,
as FLA's kernels write them). The GPU compiler resolves such a name to the builtin; the CPU
interpreter patches only the builtins it finds in triton.language, so the judge rebinds these."""

EDITS = [
    (
        "import triton.language as tl\n\n",
        "import triton.language as tl\n\nexp = tl.exp\nrow_max = tl.max\n\n",
    ),
    (
        "    shifted = x - tl.max(x, axis=1)[:, None]\n    numerator = tl.exp(shifted)\n",
        "    shifted = x - row_max(x, axis=1)[:, None]\n    numerator = exp(shifted)\n",
    ),
]
