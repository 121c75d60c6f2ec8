"""Correct, written differently: the exponential from libdevice, as torch.compile's generated
kernels call it (libdevice.exp). On a GPU the compiler swaps triton.language.extra.libdevice for
CUDA's; the CPU interpreter has no libdevice, so the judge stands tl.math's exp in for it."""

EDITS = [
    (
        "import triton.language as tl\n\n",
        "import triton.language as tl\nfrom triton.language.extra import libdevice\n\n",
    ),
    (
        "    numerator = tl.exp(shifted)\n",
        "    numerator = libdevice.exp(shifted)\n",
    ),
]
