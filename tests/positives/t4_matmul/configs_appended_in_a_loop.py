"""Correct, written differently: the autotune list built as many libraries build theirs, an
empty list and a loop that appends each config. The judge's reading of the source cannot follow
the loop; it must not take the list for the empty one it saw first, but fall back to the
configs the file runs with."""

EDITS = [
    (
        "CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS\n",
        "CONFIGS = []\nfor config in [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS:\n"
        "    CONFIGS.append(config)\n",
    ),
]
