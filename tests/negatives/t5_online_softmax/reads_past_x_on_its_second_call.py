"""On a second call of the same shape on another x, also reads one element past x's end: only
the second call's x is read outside, a tensor the first call does not take. The judge used to
fail on this itself (its name for that x was taken for a temporary's)."""

LOSES = ["softmax"]
SAYS = "the second (other inputs of the same shapes, a fresh `out`) was not: read 1 element"
RUNTIMES = ["interpreter"]
EDITS = [
    (
        "PROGRAMS = 1024\n",
        "PROGRAMS = 1024\n"
        "_SHAPES = []\n"
        "\n"
        "\n"
        "@triton.jit\n"
        "def peek_kernel(x_ptr, last_ptr, n):\n"
        "    tl.store(last_ptr, tl.load(x_ptr + n))  # the mistake: one element past x's end\n",
    ),
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        "    if _SHAPES and _SHAPES[-1][0] == x.shape and _SHAPES[-1][1] != x.data_ptr():\n"
        "        peek_kernel[(1,)](x, torch.empty(1, device=x.device), x.numel())\n"
        "    _SHAPES.append((x.shape, x.data_ptr()))\n"
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
    ),
]
