"""A GPU config with BLOCK_SIZE_K = 8: tl.dot on sm_90 needs K blocks of at least 16, so a
GPU refuses to compile it, while the interpreter runs it. Only a GPU runs that config: on the
CPU the judge compiles each config of the list a GPU machine makes."""

LOSES = ["autotune_grid"]
SAYS = "tl.dot on a GPU needs blocks of at least 16 along K"
EDITS = [
    (
        "        (32, 64, 32, 5, 2),\n",
        "        (32, 64, 32, 5, 2),\n        (64, 64, 8, 4, 4),\n",
    ),
]
