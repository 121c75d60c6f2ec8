"""Converts to float32 before adding: integers above 2^24 come back rounded."""

LOSES = ["dtypes"]
SAYS = "float32"
EDITS = [
    (
        "    x = tl.load(x_ptr + offs, mask=mask)\n    y = tl.load(y_ptr + offs, mask=mask)\n",
        "    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)\n    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)\n",
    ),
]
