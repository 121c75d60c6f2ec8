"""The repo's own tests of `make bench` that need no GPU: the rows it assembles, the reports it
writes, and its refusal to time anything on the interpreter."""

import io
import json
import subprocess
import sys

import pytest
import rich.console
import torch

from drills import bench, catalog, chinese, runtime
from drills.judge.testing import TOLERANCES

VERSIONS = {"gpu": "test GPU", "torch": "t", "triton": "tr", "python": "p"}
N = 1024
LIMIT = bench.Limit(100.0, "copy bandwidth", "a test")


@pytest.fixture
def one_shape_bench(monkeypatch, tmp_path):
    """T1's benchmark cut down to one small shape, timed by a fake clock (0.5 ms a call, 0.25
    ms replayed from a CUDA graph), which refreshes the inputs before each call as the real one
    does."""
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
    monkeypatch.setattr(bench, "_median_ms", lambda fn, refresh: (refresh(), fn(), 0.5)[2])
    monkeypatch.setattr(bench, "_graph_ms", lambda fn: (fn(), 0.25)[1])
    monkeypatch.setattr(bench, "REPORTS", tmp_path)


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_rows_record_the_kernel_under_test(one_shape_bench):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", {"GB/s": LIMIT}, VERSIONS)
    (row,) = rows
    assert (row.impl, row.gate, row.shape, row.unit) == ("solutions", "ok", "2^10", "GB/s")
    assert row.impl_rate == pytest.approx(3 * N * 4 / 0.5 / 1e6)
    assert row.vs_torch == pytest.approx(1.0)
    assert row.of_limit == pytest.approx(row.impl_rate / LIMIT.value)
    assert (row.impl_graph_ms, row.reference_graph_ms, row.torch_graph_ms) == (0.25,) * 3
    assert row.graph_vs_torch == pytest.approx(1.0)
    assert (row.gpu, row.torch_version, row.triton_version) == ("test GPU", "t", "tr")
    assert row.suspect == ""


# An add that keeps its first result for the same tensors: right on the gate's inputs, wrong
# once they hold new values, as after the timings.
KEEPS_ITS_FIRST_RESULT = """
kept = {}


def add(x, y, out=None):
    key = (x.data_ptr(), y.data_ptr())
    if key not in kept:
        kept[key] = x + y
    return kept[key].clone()
"""


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_kernel_wrong_after_timing_is_not_reported(one_shape_bench, tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "t1_add.py").write_text(KEEPS_ITS_FIRST_RESULT)
    (row,) = bench.bench_drill(
        catalog.find("t1"), str(tmp_path / "mine"), {"GB/s": LIMIT}, VERSIONS
    )
    assert row.gate.startswith("after timing, wrong result"), row.gate
    assert row.impl_ms is None and row.impl_rate is None and row.impl_graph_ms is None
    assert row.reference_rate  # the reference is timed, and right after its timings


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_row_above_its_limit_is_suspect_in_every_report(one_shape_bench, tmp_path):
    low = bench.Limit(0.001, "copy bandwidth", "a test")  # far below the fake clock's rates
    (row,) = bench.bench_drill(catalog.find("t1"), "solutions", {"GB/s": low}, VERSIONS)
    assert row.suspect.startswith("suspect: solutions at ") and "torch at" in row.suspect
    html = bench.write_reports([row], "solutions", VERSIONS)
    assert row.suspect in html.read_text()
    assert json.loads(html.with_suffix(".json").read_text())[0]["suspect"] == row.suspect
    table = io.StringIO()
    shown = bench.terminal_table([row], "solutions", bench.WORDS["en"])
    rich.console.Console(file=table, width=400).print(shown)
    assert "!" in table.getvalue()


def refuses_t1_in_each_language(monkeypatch, capsys, said: dict[str, str]) -> None:
    """`make bench t1` exits 2 with `said[language]` on stderr in each language kept."""
    for language, says in said.items():
        monkeypatch.setattr(chinese, "language", lambda language=language: language)
        assert bench.main(["t1"]) == 2
        assert says in capsys.readouterr().err


@pytest.mark.skipif(runtime.current().is_gpu, reason="the refusal of a machine without a GPU")
def test_the_bench_refuses_the_interpreter_in_the_language_kept(monkeypatch, capsys):
    said = {"en": "benchmarks need an NVIDIA GPU", "zh": "基准测试需要 NVIDIA GPU"}
    refuses_t1_in_each_language(monkeypatch, capsys, said)
    assert bench.main(["t9"]) == 2
    assert "没有名为 't9' 的练习" in capsys.readouterr().err


def test_the_bench_without_the_reference_says_a_course_copy_leaves_it_out(monkeypatch, capsys):
    """A course copy has no solutions/: on a GPU the bench says so before timing anything."""
    gpu = runtime.Runtime("gpu", "cuda", "GPU test (sm_90)")
    monkeypatch.setattr(runtime, "current", lambda: gpu)
    monkeypatch.setattr(bench, "load_bench", lambda drill: "T1's benchmark")
    monkeypatch.setattr(
        bench, "reference_file", lambda drill, b: catalog.ROOT / "solutions" / "gone.py"
    )
    said = {
        "en": "this copy has no solutions/gone.py (a course copy leaves solutions/ out)",
        "zh": "这份副本里没有 solutions/gone.py",
    }
    refuses_t1_in_each_language(monkeypatch, capsys, said)


def test_the_limit_is_the_larger_of_its_measures(monkeypatch):
    ways = {"torch's copy": 4000.0, "a Triton copy kernel": 4100.0}
    monkeypatch.setitem(bench.LIMITS, "GB/s", ("copy bandwidth", lambda: ways))
    limit = bench.measure_limit("GB/s")
    assert limit.value == 4100.0
    assert limit.name == "copy bandwidth, by a Triton copy kernel (torch's copy 4000)"


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_stub_is_gated_out_and_not_timed(one_shape_bench):
    (row,) = bench.bench_drill(
        catalog.find("t1"), str(catalog.find("t1").stub), {"GB/s": LIMIT}, VERSIONS
    )
    assert row.gate == "not started" and row.impl_ms is None and row.impl_rate is None
    assert row.impl_graph_ms is None and row.graph_vs_torch is None


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_reports_are_written_and_can_be_rendered_again(one_shape_bench, tmp_path):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", {"GB/s": LIMIT}, VERSIONS)
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


def test_the_matmul_limit_is_the_specified_peak_where_the_gpu_is_known(monkeypatch):
    assert bench.specified_peak("NVIDIA H200") == {
        "NVIDIA's specification of the NVIDIA H200": 989.4
    }
    assert bench.specified_peak("NVIDIA GeForce RTX 4090") == {}  # measured cuBLAS only
    ways = {"cuBLAS 8192^3": 728.0, **bench.specified_peak("NVIDIA H200")}
    monkeypatch.setitem(bench.LIMITS, "TFLOP/s", ("fp16 matmul peak", lambda: ways))
    limit = bench.measure_limit("TFLOP/s")
    assert limit.value == 989.4
    assert limit.name == (
        "fp16 matmul peak, by NVIDIA's specification of the NVIDIA H200 (cuBLAS 8192^3 728)"
    )
