"""Masks the scores of keys past seq_k, and after the query when causal, with -1e4 (an fp16
habit) instead of -inf: a row whose own scores are all below -1e4 takes the masked keys'
weight."""

LOSES = ["tails", "causal"]
SAYS = "keys masked with a large finite value"
EDITS = [
    (
        '        scores = tl.where(visible, scores, -float("inf"))\n',
        "        scores = tl.where(visible, scores, -1.0e4)\n",
    ),
]
