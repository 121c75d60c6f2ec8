"""Stores every lane of the last block: past the end of each row of the output."""

LOSES = ["inside"]
SAYS = "outside"
EDITS = [
    (
        "        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty), mask=mask)\n",
        "        tl.store(out_row + cols, y.to(out_ptr.dtype.element_ty))\n",
    ),
]
