"""On the second call of "softmax twice" (the same x's values again, 3 x 9000), also reads one
element past x's end. The judge used to name the first call for it: both calls were given the
same x, so a read outside it could not be told apart. The second call now gets its own copy."""

LOSES = ["softmax"]
SAYS = "the second (the same inputs, a fresh `out`) was not: read 1 element"
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
        # the two calls of "softmax twice" are 3 x 9000's first two
        "    _CALLS[x.shape] = _CALLS.get(x.shape, 0) + 1\n"
        "    if x.shape == (3, 9000) and _CALLS[x.shape] == 2:\n"
        "        peek_kernel[(1,)](x, torch.empty(1, device=x.device), x.numel())\n"
        "    if parts is None:\n        parts = parts_for(n_rows, n_cols)\n",
    ),
]
