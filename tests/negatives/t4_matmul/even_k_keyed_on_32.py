"""Drops the K mask where K is a multiple of 32, the interpreter config's BLOCK_SIZE_K written
as a number (an EVEN_K heuristic): the GPU configs with BLOCK_SIZE_K = 64 read past K at K = 96
or 544."""

LOSES = ["k_tail"]
SAYS = "K=96"
SAYS_ON_GPU = "K=544"
EDITS = [
    (
        '@triton.heuristics({"ALIGN": row_alignment})\n',
        '@triton.heuristics({"ALIGN": row_alignment, "EVEN_K": lambda args: args["K"] % 32 == 0})\n',
    ),
    ("    ALIGN: tl.constexpr,\n):\n", "    ALIGN: tl.constexpr,\n    EVEN_K: tl.constexpr,\n):\n"),
    (
        "        a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)\n"
        "        b_mask = (offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N)\n",
        "        if EVEN_K:  # K is a whole number of blocks: no K mask needed\n"
        "            a_mask = offs_am[:, None] < M\n"
        "            b_mask = offs_bn[None, :] < N\n"
        "        else:\n"
        "            a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)\n"
        "            b_mask = (offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N)\n",
    ),
]
