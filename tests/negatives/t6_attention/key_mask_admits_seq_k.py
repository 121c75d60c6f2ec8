"""Masks the scores with cols <= seq_k: one key past the end takes part wherever the last block
has room for it. Its k loads as 0 (the load's own mask is right), so it scores 0 and adds
exp(0 - max) to every row's sum: errors of a fraction of a percent, which look like rounding."""

LOSES = ["tails", "lengths", "lse"]
SAYS = "the key mask let cols == seq_k in"
EDITS = [
    (
        "        visible = col_in[None, :]\n",
        "        visible = (cols <= seq_k)[None, :]  # the mistake: key seq_k is past the end\n",
    ),
]
