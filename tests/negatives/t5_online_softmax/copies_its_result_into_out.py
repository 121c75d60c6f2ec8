"""The kernels write a contiguous result of their own, which torch then copies into out: the
values are right, and the row is still shared by its programs, but out's strides are never
followed. It costs the strides check and no other (test_self_grading.py)."""

LOSES = ["strides"]
SAYS = "torch copied a tensor outside the kernel"
EDITS = [
    (
        "    normalize_kernel[grid](\n        x,\n        out,\n",
        "    given = out  # the mistake: out is filled by a copy\n"
        "    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
        "    normalize_kernel[grid](\n        x,\n        out,\n",
    ),
    (
        "        BLOCK_SIZE=BLOCK_SIZE,\n    )\n    return out\n",
        "        BLOCK_SIZE=BLOCK_SIZE,\n    )\n    given.copy_(out)\n    return given\n",
    ),
]
