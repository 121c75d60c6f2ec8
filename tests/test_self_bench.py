"""The repo's own tests of `make bench` that need no GPU: the rows it assembles, the reports it
writes, and its refusal to time anything on the interpreter."""

import base64
import dataclasses
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
BANDWIDTH = bench.Limit(100.0, "copy bandwidth", "a test")
LIMITS = {"bandwidth": BANDWIDTH, "fp32": bench.Limit(50.0, "fp32 CUDA-core peak", "a test")}


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
        flops=lambda shape: N,
        bytes_moved=lambda shape: 3 * N * 4,
        tolerance=lambda shape: TOLERANCES[torch.float32],
        size_name="elements",
    )
    monkeypatch.setattr(bench, "load_bench", lambda drill: small)
    monkeypatch.setattr(bench, "_median_ms", lambda fn, refresh: (refresh(), fn(), 0.5)[2])
    monkeypatch.setattr(bench, "_graph_ms", lambda fn: (fn(), 0.25)[1])
    monkeypatch.setattr(bench, "REPORTS", tmp_path)


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_rows_record_the_kernel_under_test(one_shape_bench):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", LIMITS, VERSIONS)
    (row,) = rows
    assert (row.impl, row.gate, row.shape, row.unit) == ("solutions", "ok", "2^10", "GB/s")
    assert row.impl_rate == pytest.approx(3 * N * 4 / 0.5 / 1e6)
    assert row.vs_torch == pytest.approx(1.0)
    # 1 FLOP for 12 bytes, below the ridge of 50 TFLOP/s over 100 GB/s: the bandwidth bounds it
    assert (row.regime, row.intensity) == ("memory-bound", pytest.approx(1 / 12))
    assert row.limit == BANDWIDTH.value and row.limit_name == BANDWIDTH.name
    assert row.of_limit == pytest.approx(row.impl_rate / BANDWIDTH.value)
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
    (row,) = bench.bench_drill(catalog.find("t1"), str(tmp_path / "mine"), LIMITS, VERSIONS)
    assert row.gate.startswith("after timing, wrong result"), row.gate
    assert row.impl_ms is None and row.impl_rate is None and row.impl_graph_ms is None
    assert row.reference_rate  # the reference is timed, and right after its timings


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_row_above_its_limit_is_suspect_in_every_report(one_shape_bench, tmp_path):
    low = bench.Limit(0.001, "copy bandwidth", "a test")  # far below the fake clock's rates
    limits = LIMITS | {"bandwidth": low}
    (row,) = bench.bench_drill(catalog.find("t1"), "solutions", limits, VERSIONS)
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
    monkeypatch.setitem(bench.LIMITS, "bandwidth", ("copy bandwidth", lambda: ways))
    limit = bench.measure_limit("bandwidth")
    assert limit.value == 4100.0
    assert limit.name == "copy bandwidth, by a Triton copy kernel (torch's copy 4000)"


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_a_stub_is_gated_out_and_not_timed(one_shape_bench):
    (row,) = bench.bench_drill(catalog.find("t1"), str(catalog.find("t1").stub), LIMITS, VERSIONS)
    assert row.gate == "not started" and row.impl_ms is None and row.impl_rate is None
    assert row.impl_graph_ms is None and row.graph_vs_torch is None


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_reports_are_written_and_can_be_rendered_again(one_shape_bench, tmp_path):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", LIMITS, VERSIONS)
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
    assert bench.specified_peak("tensor", "NVIDIA H200") == {
        "NVIDIA's specification of the NVIDIA H200": 989.4
    }
    assert bench.specified_peak("tensor", "NVIDIA GeForce RTX 4090") == {}  # measured only
    ways = {"cuBLAS 8192^3": 728.0, **bench.specified_peak("tensor", "NVIDIA H200")}
    monkeypatch.setitem(bench.LIMITS, "tensor", ("fp16 tensor-core peak", lambda: ways))
    limit = bench.measure_limit("tensor")
    assert limit.value == 989.4
    assert limit.name == (
        "fp16 tensor-core peak, by NVIDIA's specification of the NVIDIA H200 (cuBLAS 8192^3 728)"
    )


H100_COPY = bench.Limit(3005.0, "copy bandwidth", "a test")
H100_TENSOR = bench.Limit(989.4, "fp16 tensor-core peak", "a test")


def t4_roof(m: int, n: int, k: int) -> bench.Roof:
    from tests.test_t4_matmul import BENCH

    return bench.roof(BENCH, bench.Shape("", 0, {"mnk": (m, n, k)}), H100_COPY, H100_TENSOR)


def test_a_matmul_of_a_few_rows_is_memory_bound_and_its_roof_is_the_bandwidth():
    """16 x 4096 x 4096 in fp16: 2·16·4096·4096 FLOPs over A, B and C moved once, 2 bytes an
    element: about 16 FLOP a byte, far below the H100's ridge (989.4 TFLOP/s over 3005 GB/s,
    about 329): its roof is the bandwidth times its intensity, not the tensor cores' peak."""
    flops, moved = 2 * 16 * 4096 * 4096, 2 * (16 * 4096 + 4096 * 4096 + 16 * 4096)
    roof = t4_roof(16, 4096, 4096)
    assert roof.regime == "memory-bound"
    assert roof.intensity == pytest.approx(flops / moved)
    assert roof.value == pytest.approx(3005.0 * flops / moved / 1e3)  # TFLOP/s
    assert roof.name.startswith("copy bandwidth, by a test, times 15.9 FLOP/byte")


def test_a_large_square_matmul_is_compute_bound_and_its_roof_is_the_peak():
    roof = t4_roof(4096, 4096, 4096)
    assert roof.regime == "compute-bound" and roof.value == 989.4
    assert roof.intensity == pytest.approx(2 * 4096**3 / (3 * 2 * 4096**2))  # 1365
    assert roof.name == H100_TENSOR.name


def test_a_row_over_its_roof_names_the_roof_in_the_rows_unit():
    """A memory-bound matmul timed past bandwidth x intensity is suspect, though far below the
    tensor cores' peak: the roof of its regime is what it is judged against."""
    roof = t4_roof(16, 4096, 4096)  # about 48 TFLOP/s
    assert bench.suspect({"reference": 40.0, "torch": 60.0}, roof).startswith(
        "suspect: torch at 126% of its roof (copy bandwidth"
    )
    assert bench.suspect({"reference": 40.0}, roof) == ""


def test_every_drills_benchmark_knows_its_regime_on_an_h100():
    """The shapes the drills declare, on the H100's roofs (fp32 peak 67 TFLOP/s): the vector
    add and the softmax are memory-bound at every shape, and of the matmuls only the products
    of a few rows are."""
    fp32 = bench.Limit(67.0, "fp32 CUDA-core peak", "a test")
    regimes = {}
    for drill in catalog.DRILLS:
        b = bench.load_bench(drill)
        for shape in b.shapes:
            peak = H100_TENSOR if b.compute == "tensor" else fp32
            regimes[drill.id, shape.label] = bench.roof(b, shape, H100_COPY, peak).regime
    memory_bound = sorted(key for key, regime in regimes.items() if regime == "memory-bound")
    assert [key for key in memory_bound if key[0] in ("t3", "t4")] == [
        ("t4", "16x4096x4096"),
        ("t4", "16x4096x4096, b = w.t()"),
    ]
    assert all(regimes[key] == "memory-bound" for key in regimes if key[0] in ("t1", "t2"))


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_the_report_shows_each_rows_regime_and_renders_a_report_saved_before_it(
    one_shape_bench, tmp_path
):
    rows = bench.bench_drill(catalog.find("t1"), "solutions", LIMITS, VERSIONS)
    html = bench.write_reports(rows, "solutions", VERSIONS)
    assert "memory 0.0833" in html.read_text()
    # a report of 2026-12-04, before rows had a regime: rendered again, without a roofline
    saved = json.loads(html.with_suffix(".json").read_text())
    for row in saved:
        for field in ("intensity", "regime", "bandwidth", "peak"):
            del row[field]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(saved))
    again = bench.rerender(old)
    assert "No roofline" in again.read_text() and "memory 0" not in again.read_text()
    assert 'alt="roofline' not in again.read_text()  # with matplotlib too: nothing to place


def test_the_roofline_places_every_row_that_knows_its_intensity():
    pytest.importorskip("matplotlib")
    row = {
        **{field.name: None for field in dataclasses.fields(bench.Row)},
        **{"drill": "t4", "shape": "16x4096x4096", "impl": "solutions", "unit": "TFLOP/s"},
        **{"gpu": "test GPU", "impl_rate": 30.0, "reference_rate": 35.0, "torch_rate": 38.0},
        **{"intensity": 15.9, "regime": "memory-bound", "bandwidth": 3005.0, "peak": 989.4},
    }
    png = base64.b64decode(bench.roofline_png([bench.Row(**row)]))
    assert png.startswith(b"\x89PNG")
    assert bench.roofline_png([bench.Row(**(row | {"intensity": None}))]) is None


@pytest.mark.skipif(runtime.current().is_gpu, reason="checks the interpreter's path")
def test_reports_are_named_after_the_graded_folder_and_never_overwrite_one(
    one_shape_bench, tmp_path
):
    """make bench IMPL=path/to/folder once failed to write its report (a name with the path's
    slashes in it), and two reports in one second shared a name, the second over the first."""
    folder = tmp_path / "students" / "ada"
    folder.mkdir(parents=True)
    (folder / "t1_add.py").write_text((catalog.ROOT / "solutions" / "t1_add.py").read_text())
    rows = bench.bench_drill(catalog.find("t1"), str(folder), LIMITS, VERSIONS)
    first = bench.write_reports(rows, str(folder), VERSIONS)
    second = bench.write_reports(rows, str(folder), VERSIONS)
    assert first.parent == second.parent == bench.REPORTS
    assert first.name.startswith("bench-ada-") and first != second
    assert first.exists() and second.exists() and first.with_suffix(".json").exists()


def test_each_call_is_timed_alone_after_what_comes_before_it(monkeypatch):
    """event_times_ms: before() runs ahead of every call and outside its two events, and each
    call's time is read from its own pair (fake CUDA events on a fake clock)."""
    clock, seen = [0.0], []

    class Event:
        def __init__(self, enable_timing: bool):
            assert enable_timing

        def record(self) -> None:
            self.at = clock[0]

        def elapsed_time(self, end: "Event") -> float:
            return end.at - self.at

    def before() -> None:
        seen.append("before")
        clock[0] += 100.0  # untimed: it must not reach any call's time

    def call() -> None:
        seen.append("call")
        clock[0] += len(seen)  # each call takes longer than the last

    monkeypatch.setattr(torch.cuda, "Event", Event)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    assert bench.event_times_ms(call, before, 3) == [2.0, 4.0, 6.0]
    assert seen == ["before", "call"] * 3
