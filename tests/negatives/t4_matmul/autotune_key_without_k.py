"""EVEN_K is a field of the configs, and the pruning keeps the EVEN_K=True config (no K mask) only
where K is a multiple of BLOCK_SIZE_K, but the autotune key is ["M", "N"]: K is missing, so the
config chosen at the first K is taken from autotune's cache at any other K with the same M and N.
Called with K = 256, then K = 45, the second call runs without the K mask. An edit of the
positive prune_configs_by.py."""

LOSES = ["k_tail"]
SAYS = "key=['M', 'N', 'K']"
EDITS_OF = "tests/positives/t4_matmul/prune_configs_by.py"
EDITS = [
    (
        'def _cfg(bm, bn, bk, stages=3, warps=4):\n    return triton.Config(\n        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 4},',
        'def _cfg(bm, bn, bk, stages=3, warps=4, even=False):\n    return triton.Config(\n        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 4, "EVEN_K": even},',
    ),
    (
        "    CONFIGS = [_cfg(32, 32, 64), _cfg(32, 16, 16)]\n",
        "    CONFIGS = [_cfg(32, 32, 64, even=True), _cfg(32, 32, 64), _cfg(32, 16, 16)]\n",
    ),
    (
        "        _cfg(128, 128, 64, 3, 8),\n",
        "        _cfg(128, 128, 64, 3, 8, even=True),\n        _cfg(128, 128, 64, 3, 8),\n",
    ),
    (
        '    return [c for c in fits if c.kwargs["BLOCK_SIZE_K"] == widest]\n',
        '    kept = [c for c in fits if c.kwargs["BLOCK_SIZE_K"] == widest]\n'
        '    even = named_args["K"] % widest == 0\n'
        '    return [c for c in kept if c.kwargs["EVEN_K"] == even] or kept\n',
    ),
    ('    key=["M", "N", "K"],\n', '    key=["M", "N"],\n'),
    (
        "    GROUP_SIZE_M: tl.constexpr,\n):",
        "    GROUP_SIZE_M: tl.constexpr,\n    EVEN_K: tl.constexpr,\n):",
    ),
    (
        "        rem = K - k * BLOCK_SIZE_K\n",
        "        rem = BLOCK_SIZE_K if EVEN_K else K - k * BLOCK_SIZE_K  # EVEN_K: no K mask\n",
    ),
]
