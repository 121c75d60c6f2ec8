"""A float launch argument that decides the result: the interpreter kept Python's float (float64)
where a GPU gets an fp32, and (1.0 + 1e-10) - 1.0 > 0 is true in float64 and false in fp32. The
kernel adds on the interpreter and subtracts on a GPU.

Scored 100/100 on the grader of commit 1cc173a (CPU interpreter), found in a review of it.
"""

ATTACK = "a float argument the interpreter kept in float64"
LAYER = "kernels"

EDITS = [
    (
        "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):",
        "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, eps, BLOCK_SIZE: tl.constexpr):",
    ),
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, tl.where((1.0 + eps) - 1.0 > 0.0, x + y, x - y), mask=mask)\n",
    ),
    (
        "add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE",
        "add_kernel[grid](x, y, out, n_elements, 1e-10, BLOCK_SIZE",
    ),
]
