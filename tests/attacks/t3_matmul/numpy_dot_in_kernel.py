"""A matmul whose K loop multiplies the blocks with numpy instead of tl.dot: on the CPU
interpreter a block's `.handle.data` is a numpy array, so `acc.handle.data += a.handle.data @
b.handle.data` computes the product with no Triton arithmetic. The rest is the reference.

Scored 95/100 on the grader of commit 4c67950 (CPU interpreter, default mode).
"""

ATTACK = "numpy matmul inside the interpreted kernel"
LAYER = "kernels"

EDITS = [
    ("        acc = tl.dot(a, b, acc)\n", "        acc = product(a, b, acc)\n"),
    (
        "@triton.jit\ndef matmul_kernel(",
        (
            "@triton.jit\n"
            "def product(a, b, acc):\n"
            "    # numpy's matmul on the blocks' arrays, in place of tl.dot\n"
            '    acc.handle.data += a.handle.data.astype("float32") @ b.handle.data.astype("float32")\n'
            "    return acc\n"
            "\n"
            "\n"
            "@triton.jit\n"
            "def matmul_kernel("
        ),
    ),
]
