"""How long grading may take, in seconds: read by the grader, which stops a drill's judges at
its limit, and by the judge, which stops a case at its own."""

# A drill in all.
DRILL_LIMIT = {"interpreter": 150, "gpu": 600}
# One case. A correct case takes a few seconds on the interpreter (16 x 16 tiles, the smallest
# tl.dot allows, under 10 s on a loaded 2-core machine); a GPU may compile (and autotune) for a
# while before the first case returns. A hang costs the drill's limit either way.
CASE_LIMIT = {"interpreter": 60, "gpu": 180}
