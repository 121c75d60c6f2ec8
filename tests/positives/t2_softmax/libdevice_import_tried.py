"""Correct, written differently: libdevice's exp chosen at import by a module-level `try: ...
except ModuleNotFoundError:`, as Liger-Kernel's kernels import rsqrt. The judge reads which
import succeeds with this triton (the same everywhere the file runs) and keeps that one in the
kernels it runs and compiles. Scored 0/100 on the grader of commit 4c67950 on the CPU
(and on an H100, as issue 48 reported)."""

EDITS = [
    (
        "import triton.language as tl\n\n",
        "import triton.language as tl\n\ntry:\n    # where triton dispatches libdevice to the GPU's own (triton 3.0 and later)\n    from triton.language.extra.libdevice import exp\nexcept ModuleNotFoundError:\n    # an older triton, as some containers still ship\n    from triton.language.extra.cuda.libdevice import exp\n\n",
    ),
    (
        "    numerator = tl.exp(shifted)\n",
        "    numerator = exp(shifted)\n",
    ),
]
