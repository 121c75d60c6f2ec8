"""Keeps the running max of the raw scores and scales only inside exp2, then builds the
log-sum-exp from that max with 1 / sqrt(head_dim): right for every output, and for lse whenever
no scale is given."""

LOSES = ["scale"]
SAYS = "exp(scale * q_i . k_j)"
EDITS = [
    (
        "    qk_scale,  # the softmax scale times log2(e)\n",
        "    qk_scale,  # the softmax scale times log2(e)\n    lse_scale,\n",
    ),
    (
        '    running_max = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)\n',
        "    running_max = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)\n",
    ),
    ("        scores = tl.dot(q, k_t) * qk_scale\n", "        scores = tl.dot(q, k_t)\n"),
    (
        "        alpha = tl.math.exp2(running_max - new_max)\n"
        "        p = tl.math.exp2(scores - new_max[:, None])\n",
        "        alpha = tl.math.exp2((running_max - new_max) * qk_scale)\n"
        "        p = tl.where(visible, tl.math.exp2((scores - new_max[:, None]) * qk_scale), 0.0)\n",
    ),
    (
        "    lse = (running_max + tl.math.log2(running_sum)) / 1.4426950408889634\n",
        "    lse = running_max * lse_scale + tl.math.log(running_sum)  # the mistake: scale\n",
    ),
    ("        scale * LOG2_E,\n", "        scale * LOG2_E,\n        1.0 / math.sqrt(head_dim),\n"),
]
