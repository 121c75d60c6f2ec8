"""The combine loads a row's sums without the mask its maxes have: with 3 parts the padded
fourth lane reads the next row's first sum, and the last row's reads past the end of the
statistics buffer the host made. The interpreter sees that load; on a GPU it reads whatever
lies after the buffer, which may happen to be harmless."""

LOSES = ["softmax"]
SAYS = "read past the end of a tensor your host code made"
RUNTIMES = ["interpreter"]
EDITS = [
    (
        "    sums = tl.load(sum_ptr + row * PARTS + parts, mask=in_row, other=0.0)\n",
        "    sums = tl.load(sum_ptr + row * PARTS + parts)\n",
    ),
]
