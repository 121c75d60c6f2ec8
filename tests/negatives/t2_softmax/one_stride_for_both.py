"""Uses x's row stride for out as well."""

LOSES = ["follows the row strides of x and out (rows of a wider tensor)"]
SAYS = "stride"
EDITS = [
    (
        "        out.stride(0),\n",
        "        x.stride(0),\n",
    ),
]
