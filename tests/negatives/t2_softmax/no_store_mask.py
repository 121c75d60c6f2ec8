"""Stores the whole block: lanes past n_cols land between or after the rows."""

LOSES = ["inside"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)\n",
        "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty))\n",
    ),
]
