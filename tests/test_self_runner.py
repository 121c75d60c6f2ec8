"""The repo's own tests of what the runner changes in triton while grading: autotuning on a GPU
runs configs in list order until one works, instead of timing them all."""

import subprocess
import sys

from drills import catalog

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
