"""Returns out alone, not (out, lse)."""

LOSES = ["attends", "launches"]
SAYS = "(out, lse)"
EDITS = [
    (
        "    return out, lse\n\n\ndef check_inputs",
        "    return out  # the mistake: lse is not returned\n\n\ndef check_inputs",
    ),
]
