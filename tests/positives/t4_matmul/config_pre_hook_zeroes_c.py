"""Correct, written differently: every config carries a pre_hook that zeroes c before the
kernel runs (as split-K code does, and as harmless here). On a GPU the grader finds each
program's tiles by running the call again with the grid cut short; the hook's zeroing of c is
the host's, not program 0's. 80/100 on an H100 (torch 2.11, triton 3.6) before the grader
told the two apart ("program 0 stored 48 tiles of c"); 100 on the CPU."""

EDITS = [
    (
        "CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS",
        'def zero_c(nargs):\n    nargs["c_ptr"].zero_()\n\n\nfor config in [*GPU_CONFIGS, INTERPRETER_CONFIG]:\n    config.pre_hook = zero_c\nCONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS',
    ),
]
