"""A kernel that subtracts, as a GPU compiles it, and adds with numpy in the else of a loop of no
steps: triton's compiler never compiles a loop's else, and the interpreter runs it. The numpy
sits in a branch that a constexpr decides, whose undefined names the judge tolerates since
triton compiles only the branch a launch takes: `np` is undefined in the kernel module, but the
interpreter puts its own globals (numpy among them) into it, and a lambda's parameters read
`.handle` where the kernel's own names may not.

Scored 100/100 on the grader of commit 3acd44f (CPU interpreter), found in a review of that
change; a GPU computes x - y.
"""

ATTACK = "numpy in a loop's else, which the compiler never sees"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    z = x - y\n"
            "    for i in tl.static_range(0):\n"
            "        pass\n"
            "    else:\n"
            "        if BLOCK_SIZE > 0:\n"
            "            (lambda a, b, c: np.add(a.handle.data, b.handle.data, out=c.handle.data))("
            "x, y, z)\n"
            "    tl.store(out_ptr + offs, z, mask=mask)\n"
        ),
    ),
]
