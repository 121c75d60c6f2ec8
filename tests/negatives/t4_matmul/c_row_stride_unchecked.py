"""Tells the kernel c's row stride is a multiple of 8 without checking it: right until c is a
slice whose rows are 83 elements apart."""

LOSES = ["strides"]
SAYS = "if its row stride were a multiple of 8"
EDITS = [
    (
        '    names = ("N", "K", "stride_am", "stride_bk", "stride_cm")\n',
        '    names = ("N", "K", "stride_am", "stride_bk")\n',
    ),
]
