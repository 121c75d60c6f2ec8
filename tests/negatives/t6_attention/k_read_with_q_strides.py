"""Reads k's rows through q's row stride: right whenever q and k are laid out alike (both
contiguous, or both views of one packed qkv)."""

LOSES = ["strides"]
SAYS = "own strides"
EDITS = [
    (
        "            k_head + cols[None, :] * stride_kn + dims[:, None],\n",
        "            k_head + cols[None, :] * stride_qm + dims[:, None],  # the mistake: q's stride\n",
    ),
]
