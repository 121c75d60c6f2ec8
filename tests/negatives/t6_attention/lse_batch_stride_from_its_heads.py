"""Addresses lse's batches as heads * stride_lh elements apart, not through lse.stride(0):
right while nothing lies between lse's batches."""

LOSES = ["strides"]
SAYS = "`lse`"
EDITS = [
    (
        "    tl.store(lse_ptr + batch * stride_lb + head * stride_lh + rows, lse, mask=row_in)\n",
        "    tl.store(lse_ptr + (batch * n_heads + head) * stride_lh + rows, lse, mask=row_in)\n",
    ),
]
