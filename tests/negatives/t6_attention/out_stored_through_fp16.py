"""Stores the output as fp16 whatever q's dtype: right for fp16, and for bf16 while every value
fits fp16; a bf16 v near 1e5 passes fp16's largest, 65504, and the output is inf. The
interpreter has no bf16 to run, so this negative is the GPU's (on the CPU the case is compiled,
and compiles)."""

LOSES = ["dtypes"]
SAYS = "inf where a finite number was expected"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "        out.to(out_ptr.dtype.element_ty),\n",
        "        out.to(tl.float16),  # the mistake: fp16 whatever out's dtype\n",
    ),
]
