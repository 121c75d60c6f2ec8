"""Uses x's row stride for out as well."""

LOSES = ["strides"]
SAYS = "stride"
EDITS = [
    (
        "        out.stride(0),\n",
        "        x.stride(0),\n",
    ),
]
