"""The scores of the last block's keys past seq_k are left as q . 0 = 0, not -inf."""

LOSES = ["tails"]
SAYS = "scored 0, not -inf"
EDITS = [
    (
        "        visible = col_in[None, :]\n",
        "        visible = cols[None, :] >= 0  # the mistake: keys past seq_k stay visible\n",
    ),
]
