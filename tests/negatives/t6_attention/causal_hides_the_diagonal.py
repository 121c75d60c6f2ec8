"""The causal mask hides the query's own key too (key < query): query 0 sees nothing."""

LOSES = ["causal"]
SAYS = "the diagonal included"
EDITS = [
    (
        "            visible = visible & (cols[None, :] <= rows[:, None])\n",
        "            visible = visible & (cols[None, :] < rows[:, None])\n",
    ),
]
