"""Stores the whole block: lanes past n_cols land between or after the rows."""

LOSES = ["stays inside its tensors (no stray loads or stores)"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty), mask=mask)\n",
        "    tl.store(out_ptrs, y.to(out_ptr.dtype.element_ty))\n",
    ),
]
