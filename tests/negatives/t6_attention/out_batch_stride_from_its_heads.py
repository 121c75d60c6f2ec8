"""Starts each (batch, head)'s output at batch_head * stride_oh, as if out's batches were heads
* stride_oh elements apart: right while out is contiguous, wrong for a view of a larger
tensor (out laid out heads-last)."""

LOSES = ["strides"]
SAYS = "dimensions 0 and 1 were indexed as one"
EDITS = [
    (
        "    out_head = out_ptr + batch * stride_ob + head * stride_oh\n",
        "    out_head = out_ptr + batch_head.to(tl.int64) * stride_oh\n",
    ),
]
