"""row_alignment leaves N out of what it checks, and the kernel still rounds N with
known_multiple: right while b's and c's row strides are N (an unaligned N makes them unaligned
too), wrong for slices 78 columns wide of rows 80 apart, where N becomes 72 and the last six
columns of c are never written."""

LOSES = ["strides"]
SAYS = "N = 78 rounded down to a multiple of 8"
EDITS = [
    (
        '    names = ("N", "K", "stride_am", "stride_bk", "stride_cm")\n',
        '    names = ("K", "stride_am", "stride_bk", "stride_cm")  # the mistake: N left out\n',
    ),
]
