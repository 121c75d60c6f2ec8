"""The scores are never scaled: the host passes log2(e) alone."""

LOSES = ["attends", "scale"]
SAYS = "scores were not scaled"
EDITS = [
    (
        "        scale * LOG2_E,\n",
        "        LOG2_E,  # the mistake: the scale is left out\n",
    ),
]
