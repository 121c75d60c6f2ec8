"""row_alignment leaves K out of what it checks, and the kernel still rounds K with
known_multiple: right while a's row stride is K (an unaligned K makes a's stride unaligned
too), wrong for a slice of a wider a, rows 48 apart with K = 45, where K becomes 40."""

LOSES = ["strides"]
SAYS = "K = 45 rounded down to a multiple of 8"
EDITS = [
    (
        '    names = ("N", "K", "stride_am", "stride_bk", "stride_cm")\n',
        '    names = ("N", "stride_am", "stride_bk", "stride_cm")  # the mistake: K left out\n',
    ),
]
