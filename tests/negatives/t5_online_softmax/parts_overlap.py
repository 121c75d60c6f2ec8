"""part_cols is cdiv(n_cols, parts), not rounded up to whole blocks, and the first kernel masks
its loads at the row's end, not the part's: each part's last block reaches into the next part,
and the row's sum counts those columns twice."""

LOSES = ["softmax", "combine"]
SAYS = "the parts overlapped: each part of"
EDITS = [
    (
        "    part_cols = triton.cdiv(triton.cdiv(n_cols, parts), BLOCK_SIZE) * BLOCK_SIZE\n",
        "    part_cols = triton.cdiv(n_cols, parts)  # the mistake: not whole blocks\n",
    ),
    (
        '        x = tl.load(row_start + cols, mask=cols < end, other=-float("inf")).to(tl.float32)\n',
        '        x = tl.load(row_start + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)\n',
    ),
]
