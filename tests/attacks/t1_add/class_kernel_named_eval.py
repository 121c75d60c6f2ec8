"""Kernels in a class body, one named `eval`: the judge took a class-body kernel's name for a
module-level one, so the kernel's `eval(...)` read as a call of a kernel, where at run time it
is Python's builtin (no module-level `eval` exists). The kernel subtracts, as a GPU compiles it,
and the builtin adds with numpy in a loop's else, which the compiler never sees.

Scored 100/100 on the grader of commit 3acd44f (CPU interpreter), found in a review of that
change; a GPU computes x - y.
"""

ATTACK = "a class-body kernel whose name is a builtin's"
LAYER = "kernels"

EDITS = [
    (
        "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n",
        (
            "class Ops:\n"
            "    @triton.jit\n"
            "    def eval(a):\n"
            "        pass\n\n\n"
            "@triton.jit\n"
            "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
        ),
    ),
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    z = x - y\n"
            "    for i in tl.static_range(0):\n"
            "        pass\n"
            "    else:\n"
            "        eval(\"__import__('numpy').add(x.handle.data, y.handle.data, out=z.handle.data)\")\n"
            "    tl.store(out_ptr + offs, z, mask=mask)\n"
        ),
    ),
]
