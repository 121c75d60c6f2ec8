"""Stores every row of the last block of queries, past seq_q."""

LOSES = ["tails", "inside"]
SAYS = "outside the output"
EDITS = [
    (
        "        out.to(out_ptr.dtype.element_ty),\n        mask=row_in[:, None] & dim_in[None, :],\n",
        "        out.to(out_ptr.dtype.element_ty),\n        mask=dim_in[None, :],  # the mistake: rows past seq_q are stored\n",
    ),
]
