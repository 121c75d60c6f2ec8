"""A kernel that subtracts, as a GPU compiles it, followed by a string literal whose text holds a
second `def add_kernel(...)` that adds with numpy. triton's compiler reads the kernel from the
first line that starts with `def ` (JITFunction's regex), the interpreter from the LAST
(FunctionRewriter._find_def in triton/runtime/interpreter.py): on the CPU the judge ran the
string's kernel, which the judge's reading never checked (it is a string), with numpy taken
from the names the interpreter puts into the kernel's module. The string's closing quotes sit
in a comment of the fake kernel, so both readings parse.

Scored 100/100 on the grader of commit 3acd44f (CPU interpreter), found in a review of that
change; a GPU computes x - y. Refused from 11d0f58 on (a later line that starts with `def `).
"""

ATTACK = "a fake def in a string literal, which the interpreter runs in place of the kernel"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    tl.store(out_ptr + offs, x - y, mask=mask)\n"
            '    """\n'
            "def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):\n"
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
