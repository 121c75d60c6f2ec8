"""The row maxes merged with tl.atomic_max live in a buffer made on the first call of a shape
and never reset: a later call's rows are measured against an earlier call's larger max."""

LOSES = ["softmax"]
SAYS = "other inputs of the same shapes"
EDITS_OF = "tests/positives/t5_online_softmax/atomic_row_max.py"
EDITS = [
    (
        "    if True:  # fresh every call\n",
        "    if key not in _ROW_MAX:  # the mistake: made once, never reset to -inf\n",
    ),
]
