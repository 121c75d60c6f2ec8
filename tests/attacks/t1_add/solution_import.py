"""Solution import: the grader's checkout ships the reference solutions, and today the graded
file is imported by a pytest process whose sys.path holds the repo root. So
`from solutions.t1_add import add` gets the reference kernel, and failing that a positive
control (tests/positives/t1_add/*.py, correct kernels written differently) as a namespace
package. Nothing here is the learner's work.

The judge stops it in both modes now: it runs only the kernels it reads in the graded file,
which has none, and --sandbox's runner cannot even read the checkout.
Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "solution import"
LAYER = "files"

import importlib

import torch


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotImplementedError("no solution within reach")


def _reference():
    for name in ("solutions.t1_add", "tests.positives.t1_add.two_blocks_per_program"):
        try:
            return importlib.import_module(name)
        except ImportError:
            pass
    return None


# Take over the reference module's names (add, add_kernel...): the grader then finds its
# kernels, and its own file, where it looks for them.
_found = _reference()
if _found is not None:
    globals().update({k: v for k, v in vars(_found).items() if not k.startswith("__")})
