"""Subtracts the running max even while it is still -inf: a first block of masked logits
(-inf alone) gives exp(-inf - (-inf)) = NaN. Right on every row with a finite value in each
part's first block."""

LOSES = ["padding"]
SAYS = "exp(-inf - (-inf)), NaN"
EDITS = [
    (
        '        shift = tl.where(new_max == -float("inf"), 0.0, new_max)\n',
        "        shift = new_max  # the mistake: -inf while only -inf was seen\n",
    ),
]
