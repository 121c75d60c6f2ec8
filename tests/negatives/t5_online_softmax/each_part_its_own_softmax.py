"""Each program normalises its part by its own part's max and sum: no combine."""

LOSES = ["combine"]
SAYS = "came out as a softmax of its own"
EDITS = [
    (
        "    row_max = tl.max(maxes, axis=0)\n    # each part's sum was taken against its own max; an empty part's is 0 against -inf\n    row_sum = tl.sum(sums * tl.exp(maxes - row_max), axis=0)\n",
        "    # the mistake: this part's pair, not the row's\n    row_max = tl.load(max_ptr + row * PARTS + part)\n    row_sum = tl.load(sum_ptr + row * PARTS + part)\n",
    ),
]
