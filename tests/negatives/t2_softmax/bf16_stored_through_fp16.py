"""Stores a bf16 result through fp16, as code written before GPUs had bf16 did: bf16 has fp32's
range and fp16 does not, so outputs below fp16's smallest normal value (6e-5) lose their digits,
and inputs past its largest (65504) would overflow. Rows of randn hold few such outputs; rows
spread wider hold many."""

LOSES = ["dtypes"]
SAYS = "wrong"
# the interpreter has no bf16
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)\n",
        (
            "    if out_ptr.dtype.element_ty == tl.bfloat16:\n"
            "        y = y.to(tl.float16)\n"
            "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)\n"
        ),
    ),
]
