"""The fake-def attack (fake_def_in_a_string.py) with a form feed where its newline was: Python
reads the string as one line, so the judge's check for a later line that starts with `def `
found none, but inspect reads the kernel's source through linecache, which splits lines at a
form feed too, and the interpreter ran the string's kernel, which adds with numpy.

Scored 100/100 on the grader of commit 11d0f58 (CPU interpreter), found in a review of it; a GPU
computes x - y.
"""

ATTACK = "a fake def after a line break only inspect sees"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    tl.store(out_ptr + offs, x - y, mask=mask)\n"
            '    """\x0cdef add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n'
            "    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)\n"
            "    mask = offs < n_elements\n"
            "    x = tl.load(x_ptr + offs, mask=mask)\n"
            "    y = tl.load(y_ptr + offs, mask=mask)\n"
            "    np.add(x.handle.data, y.handle.data, out=x.handle.data)\n"
            "    tl.store(out_ptr + offs, x, mask=mask)\n"
            '    #"""\n'
        ),
    ),
]
