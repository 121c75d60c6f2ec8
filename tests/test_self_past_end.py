"""Inputs placed at the end of mapped GPU memory (drills/judge/past_end.py): where a tensor ends,
and, on a GPU, that a load of the element after the last one faults while one of the last does
not. The negatives no_load_mask (T1, T2) and a_rows_unmasked (T3, T4) show it through grading."""

import os
import subprocess
import sys

import pytest
import torch

from drills import catalog, runtime
from drills.judge.past_end import ALIGNMENT, end_in_bytes
from drills.judge.testing import Guarded


def spec_of(t: torch.Tensor) -> dict:
    return {"shape": list(t.shape), "stride": list(t.stride()), "offset": t.storage_offset()}


@pytest.mark.parametrize(
    "make",
    [
        lambda: Guarded((1000,), torch.float32, output=False, dev="cpu"),
        lambda: Guarded((7, 100), torch.float16, output=False, row_gap=28, dev="cpu"),
        lambda: Guarded((48, 70), torch.float16, output=False, transposed=True, dev="cpu"),
    ],
    ids=["1-D", "rows apart", "transposed"],
)
def test_a_tensor_ends_after_its_last_element_in_memory(make):
    t = make().tensor
    # the last element the tensor covers in its buffer, found by marking them all
    covered = torch.zeros(t.storage_offset() + t.untyped_storage().nbytes(), dtype=torch.bool)
    covered.as_strided(t.shape, t.stride(), t.storage_offset()).fill_(True)
    last = int(torch.nonzero(covered).max())
    assert end_in_bytes(spec_of(t), t.element_size()) == (last + 1) * t.element_size()


def test_an_empty_tensor_ends_where_it_starts():
    assert end_in_bytes({"shape": [0, 5], "stride": [5, 1], "offset": 12}, 2) == 24


# Run in a process of its own: a fault leaves a CUDA context unusable.
READS = """
import sys
import torch, triton, triton.language as tl
from drills.judge.past_end import MappedEnd

@triton.jit
def copy_kernel(src, dst, n, LOAD_LIMIT):
    offs = tl.arange(0, 1024)
    x = tl.load(src + offs, mask=offs < LOAD_LIMIT)
    tl.store(dst + offs, x, mask=offs < n)

n, limit = 1000, int(sys.argv[1])
mapped = MappedEnd(4 * n, torch.cuda.current_device())
src = mapped.bytes.view(torch.float32)
assert src.data_ptr() % 16 == 0
src.copy_(torch.arange(n, dtype=torch.float32, device="cuda"))
dst = torch.empty(n, device="cuda")
copy_kernel[(1,)](src, dst, n, limit)
torch.cuda.synchronize()
assert torch.equal(dst.cpu(), torch.arange(n, dtype=torch.float32))
mapped.close()
"""


@pytest.mark.skipif(not runtime.current().is_gpu, reason="needs a GPU")
@pytest.mark.parametrize("limit, faults", [(1000, False), (1001, True)], ids=["last", "one past"])
def test_a_load_past_the_end_faults_and_one_of_the_last_does_not(limit, faults, tmp_path):
    assert (4 * 1000) % ALIGNMENT == 0  # so nothing lies between the last element and the end
    script = tmp_path / "reads.py"  # @triton.jit needs its kernel's source in a file
    script.write_text(READS)
    done = subprocess.run(
        [sys.executable, str(script), str(limit)],
        cwd=catalog.ROOT,
        env=os.environ | {"PYTHONPATH": str(catalog.ROOT)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert (done.returncode != 0) == faults, done.stderr[-2000:]
    if faults:
        assert "illegal memory access" in done.stderr, done.stderr[-2000:]
