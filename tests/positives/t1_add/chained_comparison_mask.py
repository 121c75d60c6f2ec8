"""Correct, written differently: programs counted from the end of the vector, so that the
partial block is the first one, and its offsets run below 0 instead of past the end. One
chained comparison masks both sides, `0 <= offs < n_elements`, which kernels have from triton
3.9 on (the interpreter before it keeps only the last comparison, and a GPU compiler refuses
it): a file the grader must tell so on older versions (drills/versions.py)."""

TRITON_FROM = "3.9"

EDITS = [
    (
        "    # pid is int32: in int64, block starts past 2^31 elements do not wrap around\n    block_start = pid.to(tl.int64) * BLOCK_SIZE\n    offs = block_start + tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]\n    # the last program runs past n_elements: masked lanes neither read nor write\n    mask = offs < n_elements\n",
        "    # program 0 takes the last whole block; the partial block, at the start, is the last one's\n    block_end = n_elements - pid.to(tl.int64) * BLOCK_SIZE\n    offs = block_end - BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)  # [BLOCK_SIZE]\n    mask = 0 <= offs < n_elements\n",
    ),
]
