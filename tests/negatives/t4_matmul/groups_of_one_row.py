"""Sets GROUP_SIZE_M = 1 in every config: the grouped order becomes row-major order, c is
right, and the programs running at once share no columns of b in L2."""

LOSES = ["grouped"]
SAYS = "every config sets GROUP_SIZE_M = 1"
EDITS = [
    (
        '        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},\n',
        '        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 1},\n',
    ),
    (
        '    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}\n',
        '    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1}\n',
    ),
]
