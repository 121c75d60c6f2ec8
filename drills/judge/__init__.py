"""The judge: the trusted side of grading, which decides every point.

A drill's suite (tests/test_tN_*.py) runs in a judge process, with `plugin` as its pytest
plugin. The judge never imports a learner's file. It reads it (`source`, and from it
`kernel_module`, `source_configs`, `host_reading`), has its host code run by a runner
(drills/runner.py, the untrusted side, alone outside this package) through `remote`, runs the
learner's kernels itself in its `executor`, compiles them for sm_90 (`gpu_compile`), and
checks what they wrote with `testing`.
"""
