"""Caches what softmax_kernel.warmup(...) compiled by BLOCK_SIZE alone, as an earlier version of
Triton's tutorial 02 did, and launches it for every input whose rows round up to that block. But
triton compiled it for the warmup's arguments: whether each row stride is a multiple of 16, each
pointer 16-byte aligned. An x whose row stride is not (rows of 100 columns, after rows of 128)
gets a kernel made for strides that are, and a GPU runs it wrong."""

LOSES = ["strides"]
SAYS = "compiled, for other arguments"
EDITS_OF = "tests/positives/t2_softmax/tutorial_02_warmup.py"
EDITS = [
    (
        "    kernel = softmax_kernel.warmup(\n",
        "    kernel = COMPILED.get(BLOCK_SIZE) or softmax_kernel.warmup(\n",
    ),
    (
        "    kernel._init_handles()\n",
        "    kernel._init_handles()\n    COMPILED[BLOCK_SIZE] = kernel\n",
    ),
    ("MAX_COLS = 65536\n", "MAX_COLS = 65536\nCOMPILED = {}  # BLOCK_SIZE -> compiled kernel\n"),
]
