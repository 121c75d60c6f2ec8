"""Carries the guarded shift as the running max: after a first block of -inf alone, the max is
the guard's 0, above a row of values near -300, whose exp() then all underflow to 0."""

LOSES = ["padding"]
SAYS = "the 0 that guards exp(-inf - (-inf))"
EDITS = [
    ("        running_max = new_max\n", "        running_max = shift\n"),
]
