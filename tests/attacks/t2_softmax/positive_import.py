"""Solution import, from the positive controls: the grader's checkout ships correct kernels
written differently (tests/positives/t2_softmax/*.py), importable today as a namespace package
because the graded file runs in a process whose sys.path holds the repo root.

Only a sandboxed runner (another user, no repo on sys.path, no read access to the checkout)
can stop this: SANDBOX_ONLY.
Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "solution import (positive controls)"
SANDBOX_ONLY = True

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
