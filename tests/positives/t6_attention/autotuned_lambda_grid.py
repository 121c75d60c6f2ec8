"""Correct, written differently: the reference with its blocks autotuned (BLOCK_M 32 or 64,
BLOCK_N 32 or 64, two num_stages), keyed on the lengths and head_dim, and a lambda grid."""

EDITS = [
    (
        "@triton.jit\ndef attention_kernel(",
        "@triton.autotune(\n"
        "    configs=[\n"
        "        triton.Config({'BLOCK_M': bm, 'BLOCK_N': bn}, num_warps=4, num_stages=s)\n"
        "        for bm in (32, 64) for bn in (32, 64) for s in (2, 3)\n"
        "    ],\n"
        "    key=['seq_q', 'seq_k', 'head_dim'],\n"
        ")\n"
        "@triton.jit\ndef attention_kernel(",
    ),
    (
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
        "    grid = lambda META: (triton.cdiv(seq_q, META['BLOCK_M']), batch * n_heads)\n",
    ),
    ("        BLOCK_M=BLOCK_M,\n        BLOCK_N=BLOCK_N,\n", ""),
]
