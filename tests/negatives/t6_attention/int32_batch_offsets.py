"""Computes the batch's and the head's offsets in int32: past 2^31 elements they wrap."""

LOSES = ["int64"]
SAYS = "int64"
RUNTIMES = ["gpu"]
EDITS = [
    (
        "    batch = (batch_head // n_heads).to(tl.int64)\n    head = (batch_head % n_heads).to(tl.int64)\n",
        "    batch = batch_head // n_heads\n    head = batch_head % n_heads\n",
    ),
]
