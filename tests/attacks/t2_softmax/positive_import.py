"""Solution import, from the positive controls: the grader's checkout ships correct kernels
written differently (tests/positives/t2_softmax/*.py), importable today as a namespace package
because the graded file runs in a process whose sys.path holds the repo root.

The judge stops it in both modes now: it runs only the kernels it reads in the graded file,
which has none, and --sandbox's runner cannot even read the checkout.
Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "solution import (positive controls)"
LAYER = "files"

import importlib

import torch


def softmax(x: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotImplementedError("no solution within reach")


def _reference():
    for name in ("online_looped", "one_row_per_program", "exp2"):
        try:
            return importlib.import_module(f"tests.positives.t2_softmax.{name}")
        except ImportError:
            pass
    return None


# Take over the positive control's names (softmax, its kernel...): the grader then finds its
# kernels, and its file, where it looks for them.
_found = _reference()
if _found is not None:
    globals().update({k: v for k, v in vars(_found).items() if not k.startswith("__")})
