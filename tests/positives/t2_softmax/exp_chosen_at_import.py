"""Correct, written differently: the exponential chosen at import by a module-level `if` on
an environment variable, as FLA's kernels choose theirs (FLA_USE_FAST_OPS). The judge decides
the `if` as the module would where it runs (the interpreter here, a GPU for the sm_90 compile)
and keeps the kernel that reads the name it binds."""

EDITS = [
    (
        "import torch\nimport triton\nimport triton.language as tl\n",
        'import os\n\nimport torch\nimport triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\nif os.environ.get("SOFTMAX_FAST_OPS", "0") == "1":\n    exp = libdevice.fast_expf\nelse:\n    exp = tl.exp\n',
    ),
    (
        "    numerator = tl.exp(shifted)\n",
        "    numerator = exp(shifted)\n",
    ),
]
