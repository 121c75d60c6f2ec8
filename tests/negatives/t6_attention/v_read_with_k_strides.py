"""Reads v through k's strides: right whenever k and v are laid out alike (both contiguous, or
both views of one packed qkv)."""

LOSES = ["strides"]
SAYS = "own strides"
EDITS = [
    (
        "        *v.stride()[:3],\n",
        "        *k.stride()[:3],  # the mistake: v's strides taken to be k's\n",
    ),
]
