"""A kernel that subtracts, as a GPU compiles it, and adds with exec from Python's builtins,
reached through triton.language itself: tl.semantic.TritonSemantic is a class of
triton.language whose attribute `lang` is the module triton.language.core, which holds
`builtins`. The judge's reading followed a chain only through modules and stopped at the
class; triton.language.semantic was not even loaded where it read, though the executor loads it.
In the interpreter exec runs in the kernel's frame; the compiler meets a NameError that the
exec'd `try` swallows.

Scored 100/100 on the graders of commits 3acd44f and 11d0f58 (CPU interpreter), found in a
review of them; a GPU computes x - y.
"""

ATTACK = "exec reached through a class of triton.language"
LAYER = "kernels"

EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        (
            "    z = x - y\n"
            "    tl.semantic.TritonSemantic.lang.builtins.exec(\n"
            '        "try:\\n    z.handle.data[:] = x.handle.data + y.handle.data\\n"\n'
            '        "except Exception:\\n    pass"\n'
            "    )\n"
            "    tl.store(out_ptr + offs, z, mask=mask)\n"
        ),
    ),
]
