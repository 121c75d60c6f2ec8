"""Correct, written differently: the guard against a running max still at -inf asks
libdevice.isinf (triton.language.extra.libdevice: CUDA's __nv_isinff on a GPU) rather than
comparing with -inf. The CPU interpreter has no libdevice: the judge's stand-in answers it with
numpy's isinf, as a block of booleans, as triton's libdevice does."""

EDITS = [
    (
        "import triton.language as tl\n",
        "import triton.language as tl\nfrom triton.language.extra import libdevice\n",
    ),
    (
        '        shift = tl.where(new_max == -float("inf"), 0.0, new_max)\n',
        "        shift = tl.where(libdevice.isinf(new_max), 0.0, new_max)\n",
    ),
]
