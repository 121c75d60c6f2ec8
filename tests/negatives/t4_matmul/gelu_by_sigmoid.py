"""GELU as x * sigmoid(1.702 x), a quick approximation: up to about 0.02 from GELU, which a
matmul's tolerance hides in a product of random values, and an exact product of small integers
does not."""

LOSES = ["multiplies"]
SAYS = "sigmoid"
EDITS = [
    (
        "    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))\n",
        "    return x * tl.sigmoid(1.702 * x)\n",
    ),
]
