"""The repo's own tests of `make bench` that need no GPU: the rows it assembles, the reports it
writes, and its refusal to time anything on the interpreter."""

import json
import subprocess
import sys

import pytest
import torch

from drills import bench, catalog, runtime
from drills.judge.testing import TOLERANCES

VERSIONS = {"gpu": "test GPU", "torch": "t", "triton": "tr", "python": "p"}
N = 1024


@pytest.fixture
def one_shape_bench(monkeypatch, tmp_path):
    """T1's benchmark cut down to one small shape, timed by a fake clock (0.5 ms a call, 0.25
    ms replayed from a CUDA graph)."""
    small = bench.Bench(
        entry="add",
        shapes=[bench.Shape("2^10", N, {"n": N})],
        make_inputs=lambda shape: (torch.randn(N), torch.randn(N)),
        torch_fn=torch.add,
        torch_name="torch.add",
        unit="GB/s",
        work=lambda shape: 3 * N * 4,
        tolerance=lambda shape: TOLERANCES[torch.float32],
        size_name="elements",
    )
    monkeypatch.setattr(bench, "load_bench", lambda drill: small)
    monkeypatch.setattr(bench, "_median_ms", lambda fn: (fn(), 0.5)[1])
    monkeypatch.setattr(bench, "_graph_ms", lambda fn: (fn(), 0.25)[1])
    monkeypatch.setattr(bench, "REPORTS", tmp_path)


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_rows_record_the_kernel_under_test(one_shape_bench):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", {"GB/s": 100.0}, VERSIONS)
    (row,) = rows
    assert (row.impl, row.gate, row.shape, row.unit) == ("solutions", "ok", "2^10", "GB/s")
    assert row.impl_rate == pytest.approx(3 * N * 4 / 0.5 / 1e6)
    assert row.vs_torch == pytest.approx(1.0)
    assert row.of_limit == pytest.approx(row.impl_rate / 100.0)
    assert (row.impl_graph_ms, row.reference_graph_ms, row.torch_graph_ms) == (0.25,) * 3
    assert row.graph_vs_torch == pytest.approx(1.0)
    assert (row.gpu, row.torch_version, row.triton_version) == ("test GPU", "t", "tr")


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_stub_is_gated_out_and_not_timed(one_shape_bench):
    (row,) = bench.bench_drill(
        catalog.find("t1"), str(catalog.find("t1").stub), {"GB/s": 1.0}, VERSIONS
    )
    assert row.gate == "not started" and row.impl_ms is None and row.impl_rate is None
    assert row.impl_graph_ms is None and row.graph_vs_torch is None


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_reports_are_written_and_can_be_rendered_again(one_shape_bench, tmp_path):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", {"GB/s": 100.0}, VERSIONS)
    html = bench.write_reports(rows, "solutions", VERSIONS)
    saved = json.loads(html.with_suffix(".json").read_text())
    assert saved[0]["impl"] == "solutions" and "test GPU" in html.read_text()
    again = bench.rerender(html.with_suffix(".json"))
    assert again.exists() and "2^10" in again.read_text()


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the refusal without a GPU")
def test_bench_refuses_to_run_without_a_gpu():
    done = subprocess.run(
        [sys.executable, "-m", "drills.bench", "t1"],
        cwd=catalog.ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "need an NVIDIA GPU" in done.stderr
