"""Solution import by path: look for solutions/t1_add.py (then tests/positives/t1_add/*.py) by
walking up from this file, from the working directory and from the judge's working directory
(/proc/<ppid>/cwd), beside sys.modules["drills"], and in well-known places (the repo's own
checkout at /work/main, Gradescope's /autograder/source, the home directory, the pytest
temporary folders the catalogue's harness copies the repo into), and load the first one found
with importlib.util.spec_from_file_location (@triton.jit needs a real source file), with its
repo root on sys.path for the positives' `from solutions... import check_inputs`.

Reading is enough: nothing is written. The judge stops it in both modes now: it runs only the kernels it reads in the graded file,
which has none, and --sandbox's runner cannot even read the checkout.
Forged 100/100 on the grader of commit de3289e.
"""

ATTACK = "solution import by path"
LAYER = "files"

import glob
import importlib.util
import os
import sys

import torch

SLUG = "t1_add"


def _roots():
    starts = [os.path.dirname(os.path.abspath(__file__)), os.getcwd(), f"/proc/{os.getppid()}/cwd"]
    drills = sys.modules.get("drills")
    if getattr(drills, "__file__", None):
        starts.append(os.path.dirname(os.path.dirname(drills.__file__)))
    for start in starts:
        path = start
        for _ in range(8):
            yield path
            parent = os.path.dirname(path)
            if parent == path:
                break
            path = parent
    yield from ("/work/main", "/autograder/source", "/autograder", os.path.expanduser("~"))
    yield from sorted(glob.glob("/tmp/pytest-of-*/pytest-*/*/*"))
    yield from sorted(glob.glob("/tmp/*"))


def _candidates():
    for root in _roots():
        yield root, os.path.join(root, "solutions", f"{SLUG}.py")
        yield from ((root, p) for p in sorted(glob.glob(f"{root}/tests/positives/{SLUG}/*.py")))


def _load():
    for root, path in _candidates():
        try:
            if not os.path.isfile(path):
                continue
            sys.path.insert(0, root)
            spec = importlib.util.spec_from_file_location(f"_found_{abs(hash(path))}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if callable(getattr(module, "add", None)):
                return module
        except Exception:  # noqa: BLE001, S112 - try the next one
            continue
    return None


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotImplementedError("no solution within reach")


# Take over the found module's names (add, add_kernel...): the grader then finds its kernels,
# and its file, where it looks for them.
_found = _load()
if _found is not None:
    globals().update({k: v for k, v in vars(_found).items() if not k.startswith("__")})
