"""Addresses lse from its shape (batch_head * seq_q), not through its strides: right while lse
is contiguous."""

LOSES = ["strides"]
SAYS = "the stores landed where `lse`'s elements would be if it were contiguous"
EDITS = [
    (
        "    tl.store(lse_ptr + batch * stride_lb + head * stride_lh + rows, lse, mask=row_in)\n",
        "    tl.store(lse_ptr + batch_head * seq_q + rows, lse, mask=row_in)  # the mistake\n",
    ),
]
