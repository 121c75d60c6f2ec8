"""Passes block sizes at launch to its autotuned kernel, as an untuned kernel takes them: triton
refuses the call, since each config passes its own. The judge used to show the error of its own
wrapper around the launch; now triton's, and what it means."""

LOSES = ["multiplies"]
SAYS = "is passed at launch too"
EDITS = [
    (
        "        out.stride(1),\n    )\n",
        "        out.stride(1),\n        BLOCK_SIZE_M=64,\n        BLOCK_SIZE_N=64,\n    )\n",
    ),
]
