"""The repo's own tests of what the runner changes in triton while grading: autotuning on a GPU
runs configs in list order until one works, instead of timing them all; and of how the judge
asks for the interpreter before torch brings triton in."""

import os
import subprocess
import sys

import pytest

from drills import catalog, runtime

# A runner's process as far as autotuning goes, on the interpreter: config A cannot load (its
# pre_hook raises what triton raises then), B works, C must never run.
AUTOTUNE_ROUND = """
import sys
sys.path.insert(0, "drills")
import runner
runner.adapt_interpreter()
runner.autotune_without_timing()
import torch, triton, triton.language as tl
from triton.runtime.errors import OutOfResources

ran = []
def hook(name):
    def pre_hook(nargs):
        ran.append(name)
        if name == "A":
            raise OutOfResources(233472, 232448, "shared memory")
    return pre_hook

configs = [triton.Config({"SCALE": s}, pre_hook=hook(name)) for name, s in zip("ABC", (1, 2, 3))]

@triton.autotune(configs=configs, key=["n"])
@triton.jit
def scale(x_ptr, n, SCALE: tl.constexpr):
    offs = tl.arange(0, 16)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * SCALE, mask=offs < n)

x = torch.ones(16)
scale[(1,)](x, 16)
print(ran, scale.best_config.kwargs["SCALE"], x[0].item())
"""


def test_autotuning_runs_configs_in_order_until_one_works():
    done = subprocess.run(
        [sys.executable, "-c", AUTOTUNE_ROUND],
        cwd=catalog.ROOT,
        env={"TRITON_INTERPRET": "1", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # A tried and skipped, B run once to be chosen and once more as the launch; C never run.
    # x is doubled once by the try and once by the launch.
    assert done.stdout.split("\n")[-2] == "['A', 'B', 'B'] 2 4.0"


def test_the_judge_interprets_triton_helpers_where_no_gpu_can_be():
    # pytest loads the plugin before any test module; torch, which the plugin imports, brings
    # in triton.language, and its tl.cdiv is interpreted only if TRITON_INTERPRET came first
    if not runtime.no_cuda_driver():
        pytest.skip("this machine has a CUDA driver: the GPU may be used")
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import drills.pytest_plugin, triton.language as tl; print(type(tl.cdiv).__name__)",
        ],
        cwd=catalog.ROOT,
        env={k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["InterpretedFunction"]
