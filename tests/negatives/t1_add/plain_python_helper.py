"""Computes the offsets in a helper without @triton.jit: the interpreter runs it as Python,
the GPU compiler refuses it."""

LOSES = ["compiles"]
SAYS = "decorate block_offsets with @triton.jit"
EDITS = [
    (
        "@triton.jit\ndef add_kernel",
        "def block_offsets(pid, BLOCK_SIZE):\n    return pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n\n\n@triton.jit\ndef add_kernel",
    ),
    (
        "    offs = block_start + tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]\n",
        "    offs = block_offsets(pid, BLOCK_SIZE)  # [BLOCK_SIZE]\n",
    ),
]
