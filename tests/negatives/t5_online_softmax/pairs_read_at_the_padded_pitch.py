"""The combine reads a row's pairs at the padded count's pitch, row * PARTS_BLOCK + parts, where
the first kernel stored them at row * PARTS + part: the same while parts is a power of two; with
3 parts every row after the first reads pairs of the row before, or memory never stored."""

LOSES = ["softmax", "combine"]
SAYS = "came out right and every other row wrong"
EDITS = [
    (
        '    maxes = tl.load(max_ptr + row * PARTS + parts, mask=in_row, other=-float("inf"))\n'
        "    sums = tl.load(sum_ptr + row * PARTS + parts, mask=in_row, other=0.0)\n",
        "    # the mistake: the padded count as the row pitch\n"
        "    maxes = tl.load(\n"
        '        max_ptr + row * PARTS_BLOCK + parts, mask=in_row, other=-float("inf")\n'
        "    )\n"
        "    sums = tl.load(sum_ptr + row * PARTS_BLOCK + parts, mask=in_row, other=0.0)\n",
    ),
]
