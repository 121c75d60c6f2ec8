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
        "_CALLS = {}  # calls so far, by x's shape\n"
        "\n"
        "\n"
        "@triton.jit\n"
        "def peek_kernel(x_ptr, last_ptr, n):\n"
        "    tl.store(last_ptr, tl.load(x_ptr + n))  # the mistake: one element past x's end\n",
    ),
    (
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
        # 3 x 9000's fourth call is the second of "other rows next" (the two calls of "softmax
        # twice" come first): a count, not x's address, which a freed x hands on
        "    _CALLS[x.shape] = _CALLS.get(x.shape, 0) + 1\n"
        "    if x.shape == (3, 9000) and _CALLS[x.shape] == 4:\n"
        "        peek_kernel[(1,)](x, torch.empty(1, device=x.device), x.numel())\n"
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
    ),
]
