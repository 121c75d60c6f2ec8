"""Stores the shift its sum was taken against as a part's max: a part with no column at all (a
row of 5000 in four parts) stores the guard's 0, which wins the combine over values near
-300."""

LOSES = ["padding"]
SAYS = "the 0 that guards exp(-inf - (-inf))"
EDITS = [
    ("    running_sum = 0.0\n", "    running_sum = 0.0\n    shift = 0.0\n"),
    (
        "    tl.store(max_ptr + row * PARTS + part, running_max)\n",
        "    tl.store(max_ptr + row * PARTS + part, shift)\n",
    ),
]
