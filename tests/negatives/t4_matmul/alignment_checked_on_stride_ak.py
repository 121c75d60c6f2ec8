"""Checks the alignment it promises on stride_ak, the stride it does not round, instead of
stride_am: with a = u.t() every checked number is a multiple of 8 while stride_am is 1, which
known_multiple rounds down to 0, so every row of c is computed from a's first row."""

LOSES = ["strides"]
SAYS = "its stride 1 rounded down to a multiple of 8 (or its offsets along M were left out)"
EDITS = [
    (
        '    names = ("N", "K", "stride_am", "stride_bk", "stride_cm")\n',
        '    names = ("N", "K", "stride_ak", "stride_bk", "stride_cm")\n',
    ),
]
