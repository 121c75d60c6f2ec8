"""`make bench [DRILL=t1] [IMPL=mine|solutions]`: time kernels beside torch, on a GPU.

For each drill: a correctness gate on every benchmark shape first, then the median time of the
kernel under test, the reference solution and torch (cuBLAS for matmul), over the shapes the
drill declares in its test file (`BENCH`, separate from its test shapes). Each call is timed
as triton.testing.do_bench times it, L2 flushed first, and on inputs given new values just
before (untimed), so that no call can return a result kept from an earlier one; the three take
turns over three rounds and the median round counts. After the timings each kernel is checked
once more, on new values: one right before and wrong after is not timed. Beside it, the median
time of the same call replayed from a CUDA graph (triton.testing.do_bench_cudagraph, L2 not
flushed, the same inputs every time): the GPU's time without the host's, which is most of a
small shape's time. Each shape is judged against the roof of its regime, as a roofline does:
its arithmetic intensity (floating-point operations per byte it must move) against the GPU's
ridge point (peak FLOP/s over copy bandwidth) says whether it is memory- or compute-bound, and
its roof is the copy bandwidth (measured in the same run, the faster of torch's copy and a
Triton copy kernel) or the compute peak of the units it runs on (fp16 tensor cores for a
matmul, fp32 CUDA cores otherwise: the GPU's specified peak where the bench knows it, or the
faster of that and a measurement in the same run). A row above its roof is flagged as suspect:
the timing or the roof is off.

Writes a terminal table and, under reports/, an HTML report (with plots when matplotlib is
installed) and the same rows as JSON.
"""

import argparse
import base64
import datetime
import functools
import io
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from drills import catalog, chinese, runtime

REPORTS = catalog.ROOT / "reports"


@dataclass(frozen=True)
class Shape:
    label: str  # "2^20", "fp16 4096x781"
    size: float  # the plot's x value
    params: dict
    series: str = ""  # shapes of one series share a line in the plot, e.g. "fp16"


@dataclass(frozen=True)
class Bench:
    """A drill's benchmark, declared beside its tests."""

    entry: str  # the host function to time: "add"
    shapes: list[Shape]
    make_inputs: Callable[[Shape], tuple]  # GPU tensors to call entry and torch_fn with
    torch_fn: Callable  # what torch users call for the same result
    torch_name: str  # "torch.add", "cuBLAS (torch.matmul)"
    unit: str  # what its rows count: "GB/s" or "TFLOP/s"
    flops: Callable[[Shape], float]  # floating-point operations per call
    bytes_moved: Callable[[Shape], float]  # bytes a call must read and write, each once
    tolerance: Callable[[Shape], object]  # drills.judge.testing.Tolerance for the gate
    size_name: str = "size"  # what Shape.size counts, for the plot's axis
    reference: str = ""  # the reference to time, a file of solutions/ (the drill's by default)
    compute: str = "fp32"  # the units its arithmetic runs on: "fp32" CUDA cores or "tensor" cores
    # what of entry's result the gate compares with torch_fn's: attention's out of (out, lse)
    compared: Callable = lambda result: result

    def work(self, shape: Shape) -> float:
        """What a call's rate counts in the bench's unit: bytes or floating-point operations."""
        return self.bytes_moved(shape) if self.unit == "GB/s" else self.flops(shape)


def matmul_flops(shape: Shape) -> float:
    """A multiply and an add per (row, column, k) of an M x K by K x N product: 2·M·N·K."""
    m, n, k = shape.params["mnk"]
    return 2 * m * n * k


def matmul_bytes(shape: Shape) -> float:
    """fp16 A and B read once, fp16 C written once: what a matmul must move at least."""
    m, n, k = shape.params["mnk"]
    return 2 * (m * k + k * n + m * n)


@dataclass
class Row:
    drill: str
    shape: str
    size: float
    size_name: str
    series: str
    impl: str
    impl_ms: float | None
    impl_rate: float | None
    reference_rate: float
    torch_rate: float
    vs_torch: float | None
    of_limit: float | None  # the kernel under test's rate over the shape's roof
    unit: str
    limit: float  # the shape's roof, in its unit
    limit_name: str  # what the roof is
    gate: str  # "ok", or why the kernel under test was not timed
    gpu: str
    torch_version: str
    triton_version: str
    date: str
    # the same calls replayed from a CUDA graph (absent from reports saved before they existed)
    impl_graph_ms: float | None = None
    reference_graph_ms: float | None = None
    torch_graph_ms: float | None = None
    # what goes past the limit, "" when nothing does (absent from reports saved before it was)
    suspect: str = ""
    # the roofline (absent from reports saved before it was): FLOP per byte, "memory-bound" or
    # "compute-bound", and the two roofs the GPU offers the row: GB/s and TFLOP/s
    intensity: float | None = None
    regime: str = ""
    bandwidth: float | None = None
    peak: float | None = None

    @property
    def graph_vs_torch(self) -> float | None:
        if self.impl_graph_ms is None or self.torch_graph_ms is None:
            return None
        return self.torch_graph_ms / self.impl_graph_ms


# Larger than the L2 cache of any GPU the drills run on (50 MB on an H100 or H200), as
# triton.testing.do_bench's: zeroing it before a call leaves none of the inputs in L2.
FLUSH_BYTES = 256 * 2**20


@functools.cache
def _flush_buffer():
    import torch

    return torch.empty(FLUSH_BYTES, dtype=torch.int8, device="cuda")


def event_times_ms(fn, before: Callable[[], None], count: int) -> list[float]:
    """fn's time in each of `count` calls, in ms, by CUDA events around the call alone, with
    before() run ahead of each call, untimed."""
    import torch

    events = []
    for _ in range(count):
        before()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        events.append((start, end))
    torch.cuda.synchronize()
    return [start.elapsed_time(end) for start, end in events]


def _median_ms(fn, refresh) -> float:
    """The median time of fn's calls, as triton.testing.do_bench takes it (L2 flushed before
    each call; 25 ms of warm-up calls, then 100 ms of timed ones), with refresh() before each
    call, untimed: it draws new values into the inputs in place, so that no call can be served a
    result kept from an earlier one."""

    def before() -> None:
        refresh()
        _flush_buffer().zero_()

    estimate = statistics.median(event_times_ms(fn, before, 5))
    event_times_ms(fn, before, max(1, int(25 / estimate)))
    return statistics.median(event_times_ms(fn, before, max(5, int(100 / estimate))))


def _graph_ms(fn) -> float:
    import triton.testing

    return triton.testing.do_bench_cudagraph(fn, return_mode="median")


ROUNDS = 3


def _interleaved_ms(fns: list[Callable], refresh) -> list[float]:
    """The median over ROUNDS rounds of each function's median time, the functions taking
    turns, so that a slow spell of the machine does not land on one of them only. A first,
    discarded round warms up: the first shapes a run timed came out slow for Triton kernels."""
    for fn in fns:
        _median_ms(fn, refresh)
    times = [[] for _ in fns]
    for _ in range(ROUNDS):
        for fn, seen in zip(fns, times, strict=True):
            seen.append(_median_ms(fn, refresh))
    return [sorted(seen)[ROUNDS // 2] for seen in times]


def refresher(args: tuple) -> Callable[[], None]:
    """New values, in place, for a benchmark's tensor inputs (every drill's are drawn from
    randn); its other arguments (attention's causal) stay as they are."""
    import torch

    def refresh() -> None:
        for t in args:
            if isinstance(t, torch.Tensor):
                t.normal_()

    return refresh


@functools.cache
def _copy_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def copy_kernel(src_ptr, dst_ptr, n, BLOCK_SIZE: tl.constexpr):
        offsets = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n
        tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)

    return copy_kernel


def copy_bandwidths() -> dict[str, float]:
    """GB/s of a device-to-device copy of 2^28 fp32 (1 GiB), counting bytes read + written, by
    torch's copy and by a Triton kernel. The limit is the larger: a kernel at 100% of the other
    would only be as fast as a copy that was slow."""
    import torch
    import triton

    x = torch.randn(2**28, device="cuda")
    y = torch.empty_like(x)
    block = 4096
    copy = _copy_kernel()
    ways = {
        "torch's copy": lambda: y.copy_(x),
        "a Triton copy kernel": lambda: copy[(triton.cdiv(x.numel(), block),)](
            x, y, x.numel(), BLOCK_SIZE=block, num_warps=8
        ),
    }
    moved = 2 * x.numel() * x.element_size() / 1e6
    # timed as the rows are, new values before each call: the GPU idles between calls alike
    return {way: moved / _median_ms(fn, refresher((x,))) for way, fn in ways.items()}


# Dense TFLOP/s by the name torch gives the GPU, from NVIDIA's H100 and H200 SXM datasheets:
# fp16 on tensor cores with fp32 accumulation (half the "with sparsity" 1,979), and fp32 on
# CUDA cores (67). A GPU not named here gets only the rates measured in the same run, which a
# good kernel can pass at some shapes (the H200 runs of 2026-12-04 in content/bench/ passed
# cuBLAS's).
SPECIFIED_PEAKS = {
    "tensor": {"NVIDIA H200": 989.4, "NVIDIA H100 80GB HBM3": 989.4},
    "fp32": {"NVIDIA H200": 67.0, "NVIDIA H100 80GB HBM3": 67.0},
}


def specified_peak(compute: str, gpu: str) -> dict[str, float]:
    """The GPU's specified peak of `compute` ("tensor" or "fp32"), as a way to it, if known."""
    peak = SPECIFIED_PEAKS[compute].get(gpu)
    return {f"NVIDIA's specification of the {gpu}": peak} if peak else {}


def tensor_peaks() -> dict[str, float]:
    """TFLOP/s of cuBLAS on an 8192^3 fp16 matmul with fp32 accumulation, and the GPU's
    specified peak where the bench knows it (the larger is the roof: cuBLAS is not the roof)."""
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    measured = 2 * 8192**3 / _median_ms(lambda: a @ b, refresher((a, b))) / 1e9
    return {"cuBLAS 8192^3": measured, **specified_peak("tensor", torch.cuda.get_device_name())}


FMAS_PER_ROUND = 16


@functools.cache
def _fma_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def fma_kernel(x_ptr, rounds, BLOCK_SIZE: tl.constexpr, FMAS: tl.constexpr):
        offsets = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_ptr + offsets)
        y = x
        for _ in range(rounds):
            for _ in tl.static_range(FMAS):  # unrolled: nothing but fused multiply-adds
                y = y * x + x
        tl.store(x_ptr + offsets, y)

    return fma_kernel


def fp32_peaks() -> dict[str, float]:
    """TFLOP/s of fp32 fused multiply-adds on the CUDA cores, by a Triton kernel that keeps its
    values in registers (2^24 of them, 2048 FMAs each, 2 FLOPs an FMA), and the GPU's specified
    peak where the bench knows it."""
    import torch
    import triton

    n, rounds, block = 2**24, 128, 1024
    x = torch.empty(n, device="cuda")
    kernel = _fma_kernel()
    measured = (
        (2 * FMAS_PER_ROUND * rounds * n)
        / 1e9
        / _median_ms(
            lambda: kernel[(triton.cdiv(n, block),)](
                x, rounds, BLOCK_SIZE=block, FMAS=FMAS_PER_ROUND, num_warps=4
            ),
            lambda: x.uniform_(-0.5, 0.5),  # |x| < 1: y stays finite
        )
    )
    return {
        "a Triton kernel of FMAs": measured,
        **specified_peak("fp32", torch.cuda.get_device_name()),
    }


# What bounds a kernel, by resource: its name, the ways to measure it, and its unit
LIMITS = {
    "bandwidth": ("copy bandwidth", copy_bandwidths),
    "tensor": ("fp16 tensor-core peak", tensor_peaks),
    "fp32": ("fp32 CUDA-core peak", fp32_peaks),
}


@dataclass(frozen=True)
class Limit:
    value: float  # GB/s for the bandwidth, TFLOP/s for a compute peak
    what: str  # "copy bandwidth"
    how: str  # the way that gave it, and the others' values

    @property
    def name(self) -> str:
        return f"{self.what}, by {self.how}"


def measure_limit(resource: str) -> Limit:
    """The resource's limit on this GPU: the largest of the ways LIMITS has to it."""
    what, measure = LIMITS[resource]
    ways = measure()
    best = max(ways, key=ways.get)
    others = [f"{way} {value:.0f}" for way, value in ways.items() if way != best]
    return Limit(ways[best], what, best + (f" ({', '.join(others)})" if others else ""))


@dataclass(frozen=True)
class Roof:
    """Where a shape sits on the GPU's roofline."""

    intensity: float  # floating-point operations per byte the shape must move
    regime: str  # "memory-bound" or "compute-bound"
    value: float  # the roof in the bench's unit
    name: str  # what the roof is, and how it was measured


def roof(bench: Bench, shape: Shape, bandwidth: Limit, peak: Limit) -> Roof:
    """The shape's roof: memory-bound where its intensity is below the GPU's ridge point (the
    peak's FLOP/s over the bandwidth's bytes/s), so the bandwidth bounds it; compute-bound
    above, where the peak does. Expressed in the bench's unit: a memory-bound matmul's roof in
    TFLOP/s is the bandwidth times its intensity."""
    intensity = bench.flops(shape) / bench.bytes_moved(shape)
    ridge = peak.value * 1e3 / bandwidth.value  # TFLOP/s over GB/s: FLOP per byte
    if intensity < ridge:
        regime, value, name = "memory-bound", bandwidth.value, bandwidth.name
        if bench.unit == "TFLOP/s":
            value, name = value * intensity / 1e3, f"{name}, times {intensity:.3g} FLOP/byte"
    else:
        regime, value, name = "compute-bound", peak.value, peak.name
        if bench.unit == "GB/s":
            value, name = value * 1e3 / intensity, f"{name}, over {intensity:.3g} FLOP/byte"
    return Roof(intensity, regime, value, name)


def suspect(rates: dict[str, float | None], roof: Roof) -> str:
    """What in a row goes past its roof: a timing that missed part of the work, or a roof
    that is not the GPU's (a copy, say, where reads outnumber writes). Empty when nothing
    does."""
    above = [
        f"{name} at {rate / roof.value:.0%}"
        for name, rate in rates.items()
        if rate and rate > roof.value
    ]
    return f"suspect: {', '.join(above)} of its roof ({roof.name})" if above else ""


def load_bench(drill: catalog.Drill) -> Bench | None:
    from drills.loading import load

    return getattr(load(drill.test_file), "BENCH", None)


def _gate(fn, bench: Bench, args, tolerance) -> str:
    """ "ok" when fn matches torch on these inputs, else why it does not."""
    from drills import NotStarted
    from drills.judge.testing import compare

    try:
        got = fn(*args)
    except NotStarted:
        return "not started"
    except Exception as e:  # noqa: BLE001 - any failure keeps this kernel out of the timings
        return f"raised {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    report = compare(bench.compared(got), bench.torch_fn(*args), tolerance)
    return "ok" if report is None else "wrong result: " + report.splitlines()[0]


def reference_file(drill: catalog.Drill, bench: Bench) -> Path:
    """The reference a drill's benchmark times beside yours: a file of solutions/."""
    return drill.source("solutions").with_name(f"{bench.reference or drill.slug}.py")


def bench_drill(
    drill: catalog.Drill, impl: str, limits: dict[str, Limit], versions: dict
) -> list[Row]:
    from drills.loading import ImplImportError, load

    bench = load_bench(drill)
    if bench is None:
        return []
    reference = getattr(load(reference_file(drill, bench)), bench.entry)
    try:
        under_test = getattr(load(catalog.source_file(impl, drill.slug)), bench.entry)
        import_problem = ""
    except ImplImportError as e:
        under_test, import_problem = None, str(e).splitlines()[0]
    bandwidth, peak = limits["bandwidth"], limits[bench.compute]
    today = datetime.date.today().isoformat()
    rows = []
    for shape in bench.shapes:
        args = bench.make_inputs(shape)
        refresh = refresher(args)
        shape_roof = roof(bench, shape, bandwidth, peak)
        per_ms = bench.work(shape) / (1e6 if bench.unit == "GB/s" else 1e9)
        tolerance = bench.tolerance(shape)
        gate = import_problem or _gate(under_test, bench, args, tolerance)
        contenders = [reference, bench.torch_fn] + ([under_test] if gate == "ok" else [])
        calls = [functools.partial(f, *args) for f in contenders]
        ref_ms, torch_ms, *tested_ms = _interleaved_ms(calls, refresh)
        ref_graph_ms, torch_graph_ms, *tested_graph_ms = [_graph_ms(call) for call in calls]
        # once more on new values: a kernel right before timing must still be right after it
        refresh()
        if gate == "ok" and (after := _gate(under_test, bench, args, tolerance)) != "ok":
            gate, tested_ms, tested_graph_ms = f"after timing, {after}", [], []
        if (after := _gate(reference, bench, args, tolerance)) != "ok":
            gate += f"; the reference, after timing: {after}"
        impl_ms = tested_ms[0] if tested_ms else None
        ref_rate, torch_rate = per_ms / ref_ms, per_ms / torch_ms
        impl_rate = per_ms / impl_ms if impl_ms else None
        rates = {impl: impl_rate, "reference": ref_rate, "torch": torch_rate}
        rows.append(
            Row(
                drill.id,
                shape.label,
                shape.size,
                bench.size_name,
                shape.series,
                impl,
                impl_ms,
                impl_rate,
                ref_rate,
                torch_rate,
                impl_rate / torch_rate if impl_rate else None,
                impl_rate / shape_roof.value if impl_rate else None,
                bench.unit,
                shape_roof.value,
                shape_roof.name,
                gate,
                versions["gpu"],
                versions["torch"],
                versions["triton"],
                today,
                tested_graph_ms[0] if tested_graph_ms else None,
                ref_graph_ms,
                torch_graph_ms,
                suspect(rates, shape_roof),
                shape_roof.intensity,
                shape_roof.regime,
                bandwidth.value,
                peak.value,
            )
        )
    return rows


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def regime_label(row: Row, words: dict) -> str:
    """ "memory 0.0833": the row's regime and its intensity in FLOP/byte ("-" for a report saved
    before the bench measured them)."""
    if row.intensity is None:
        return "-"
    return f"{words[row.regime]} {row.intensity:.3g}"


def terminal_table(rows: list[Row], impl: str, words: dict):
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    left = (words["drill"], words["shape"], words["regime"], words["unit"], words["gate"])
    for name in (
        words["drill"],
        words["shape"],
        f"{impl} ms",
        impl,
        words["reference"],
        "torch",
        f"{impl}/torch",
        words["regime"],
        words["roof"],
        words["of_limit"],
        f"{impl} graph ms",
        "graph torch ms",
        words["graph_ratio"],
        words["unit"],
        words["gate"],
    ):
        table.add_column(name, justify="left" if name in left else "right")
    for r in rows:
        table.add_row(
            r.drill,
            r.shape,
            _fmt(r.impl_ms, ".4f"),
            _fmt(r.impl_rate, ".0f"),
            f"{r.reference_rate:.0f}",
            f"{r.torch_rate:.0f}",
            _fmt(r.vs_torch, ".2f"),
            regime_label(r, words),
            f"{r.limit:.0f}",
            _fmt(r.of_limit, ".0%") + ("!" if r.suspect else ""),
            _fmt(r.impl_graph_ms, ".4f"),
            _fmt(r.torch_graph_ms, ".4f"),
            _fmt(r.graph_vs_torch, ".2f"),
            r.unit,
            r.gate,
        )
    return table


def plot_png(rows: list[Row], drill: str) -> str | None:
    """A base64 PNG of throughput against size for one drill, or None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    mine = [r for r in rows if r.drill == drill]
    fig, ax = plt.subplots(figsize=(7, 4))
    for series in dict.fromkeys(r.series for r in mine):
        line = [r for r in mine if r.series == series]
        sizes, name = [r.size for r in line], f"{series} " if series else ""
        if any(r.impl_rate for r in line):
            ax.plot(sizes, [r.impl_rate for r in line], "o-", label=f"{name}{line[0].impl}")
        ax.plot(sizes, [r.reference_rate for r in line], "s-", label=f"{name}reference")
        ax.plot(sizes, [r.torch_rate for r in line], "^--", label=f"{name}torch")
    # each shape's own roof: the bandwidth's for one, the peak's for another (the table names it)
    roofs = sorted({(r.size, r.limit) for r in mine})
    ax.scatter(*zip(*roofs, strict=True), marker="_", s=300, color="grey", label="roof")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(mine[0].size_name)
    ax.set_ylabel(mine[0].unit)
    ax.set_title(f"{drill} on {mine[0].gpu}")
    ax.grid(True, alpha=0.3)
    ax.legend()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


MARKERS = {"impl": "o", "reference": "s", "torch": "^"}


def achieved_tflops(row: Row, rate: float) -> float:
    """A rate of the row's unit as TFLOP/s, through the row's intensity."""
    return rate if row.unit == "TFLOP/s" else rate * row.intensity / 1e3


def roofline_png(rows: list[Row]) -> str | None:
    """A base64 PNG of the roofline: each shape of each drill at its intensity, at the TFLOP/s
    the kernel under test, the reference and torch reached, under the GPU's roofs (the
    bandwidth's slope and each compute peak's ceiling). None without matplotlib or without a
    row that has its intensity (a report saved before the bench measured it)."""
    placed = [r for r in rows if r.intensity is not None]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if not placed:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    low = min(r.intensity for r in placed) / 2
    high = max(max(r.intensity for r in placed), max(r.peak * 1e3 / r.bandwidth for r in placed))
    bandwidth = placed[0].bandwidth
    for peak in sorted({r.peak for r in placed}):
        ridge = peak * 1e3 / bandwidth
        ax.plot([low, ridge, high * 2], [bandwidth * low / 1e3, peak, peak], ":", color="grey")
        ax.annotate(f"{peak:.0f} TFLOP/s", (high * 2, peak), ha="right", va="bottom", color="grey")
    colours = dict(zip(dict.fromkeys(r.drill for r in placed), plt.cm.tab10.colors, strict=False))
    for r in placed:
        for who, rate in (
            ("impl", r.impl_rate),
            ("reference", r.reference_rate),
            ("torch", r.torch_rate),
        ):
            if rate:
                ax.scatter(
                    r.intensity,
                    achieved_tflops(r, rate),
                    marker=MARKERS[who],
                    color=colours[r.drill],
                    alpha=0.8,
                )
    for drill, colour in colours.items():
        ax.scatter([], [], marker="o", color=colour, label=drill)
    for who, marker in MARKERS.items():
        ax.scatter(
            [], [], marker=marker, color="black", label=placed[0].impl if who == "impl" else who
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("arithmetic intensity (FLOP per byte moved)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"Roofline of {placed[0].gpu} (copy bandwidth {bandwidth:.0f} GB/s)")
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(fontsize="small")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode()


def report_path(impl: str, stamp: str) -> Path:
    """reports/bench-IMPL-STAMP.html, IMPL the graded folder's own name (mine, solutions, or the
    last part of a path), and never a report already there (two runs in one second)."""
    REPORTS.mkdir(exist_ok=True)
    name = f"bench-{Path(impl).name}-{stamp}"
    path, again = REPORTS / f"{name}.html", 2
    while path.exists():
        path, again = REPORTS / f"{name}-{again}.html", again + 1
    return path


def write_reports(rows: list[Row], impl: str, versions: dict) -> Path:
    import jinja2

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = report_path(impl, stamp)
    drills = sorted({r.drill for r in rows}, key=[d.id for d in catalog.DRILLS].index)
    template = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True
    ).get_template("bench.html.j2")
    plots = {d: plot_png(rows, d) for d in drills}
    roofline = roofline_png(rows)
    for name, png in {**plots, "roofline": roofline}.items():
        if png:
            path.with_name(f"{path.stem}-{name}.png").write_bytes(base64.b64decode(png))
    html = template.render(
        rows=rows,
        impl=impl,
        versions=versions,
        drills=drills,
        plots=plots,
        roofline=roofline,
        stamp=stamp,
        regime_label=lambda row: regime_label(row, WORDS["en"]),
    )
    path.write_text(html)
    path.with_suffix(".json").write_text(json.dumps([asdict(r) for r in rows], indent=2) + "\n")
    return path


def rerender(path: Path) -> Path:
    """Write the HTML report and plots again from a saved JSON report (no GPU needed)."""
    rows = [Row(**row) for row in json.loads(path.read_text())]
    first = rows[0]
    versions = {
        "gpu": first.gpu,
        "torch": first.torch_version,
        "triton": first.triton_version,
        "python": "(from the saved report)",
    }
    return write_reports(rows, first.impl, versions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("drills", nargs="*", metavar="DRILL")
    parser.add_argument("--impl", default="mine", help="mine (default) or solutions")
    parser.add_argument(
        "--from-json",
        type=Path,
        metavar="PATH",
        help="re-render the HTML report and plots of a saved JSON report",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    chinese.keep_choice()
    language = chinese.language()
    words = WORDS[language]
    if args.from_json:
        print(f"{words['report']}: {rerender(args.from_json)}")
        return 0
    try:
        selected = [catalog.find(name) for name in args.drills] or catalog.DRILLS
    except catalog.NotFound as e:
        print(f"make bench: {e.said(language)}", file=sys.stderr)
        return 2
    rt = runtime.current()
    if not rt.is_gpu:
        print(f"make bench: {words['no_gpu'].format(runtime=rt.description)}", file=sys.stderr)
        return 2
    for drill, bench in ((d, load_bench(d)) for d in selected):
        if bench is not None and not reference_file(drill, bench).is_file():
            shown = reference_file(drill, bench).relative_to(catalog.ROOT)
            print(f"make bench: {words['no_reference'].format(reference=shown)}", file=sys.stderr)
            return 2
    import torch

    from drills.report import console

    versions = runtime.versions() | {"gpu": torch.cuda.get_device_name()}
    computes = {b.compute for b in (load_bench(d) for d in selected) if b}
    limits = {resource: measure_limit(resource) for resource in ["bandwidth", *sorted(computes)]}
    out = console()
    out.print(
        words["title"].format(impl=args.impl, gpu=versions["gpu"])
        + f" · torch {versions['torch']} · triton {versions['triton']} · "
        f"{datetime.date.today().isoformat()}"
    )
    for resource, limit in limits.items():
        unit = "GB/s" if resource == "bandwidth" else "TFLOP/s"
        out.print(f"{words['limit']}: {limit.name} = {limit.value:.0f} {unit}")
    rows = [row for d in selected for row in bench_drill(d, args.impl, limits, versions)]
    out.print(terminal_table(rows, args.impl, words))
    for row in rows:
        if row.suspect:
            out.print(f"{row.drill} {row.shape}: {row.suspect}", style="bold red")
    report = write_reports(rows, args.impl, versions).relative_to(catalog.ROOT)
    out.print(f"{words['report']}: {report}")
    return 0


# The bench's own words in the terminal, per language (`make bench LANG=zh`); the HTML report,
# the figures and what a row's limit says stay in English.
WORDS = {
    "en": {
        "no_gpu": "benchmarks need an NVIDIA GPU, and this machine runs kernels on the "
        "{runtime}. Timings from the interpreter say nothing about a GPU. `make grade` works "
        "here.",
        "no_reference": "a benchmark times your kernel beside the reference solution and torch, "
        "and this copy has no {reference} (a course copy leaves solutions/ out).",
        "title": "Benchmarking {impl}/ on {gpu}",
        "limit": "limit",
        "report": "report",
        "drill": "drill",
        "shape": "shape",
        "reference": "reference",
        "regime": "regime, FLOP/B",
        "roof": "roof",
        "memory-bound": "memory",
        "compute-bound": "compute",
        "of_limit": "of roof",
        "graph_ratio": "graph ratio",
        "unit": "unit",
        "gate": "gate",
    },
    "zh": {
        "no_gpu": "基准测试需要 NVIDIA GPU，而这台机器在 {runtime} 上运行 kernel。解释器上"
        "测出的时间说明不了 GPU 上的快慢。这里可以用 `make grade`。",
        "no_reference": "基准测试把你的 kernel 和参考答案、torch 放在一起计时，而这份副本里没有 "
        "{reference}（课程用的副本不带 solutions/）。",
        "title": "在 {gpu} 上给 {impl}/ 做基准测试",
        "limit": "上限",
        "report": "报告",
        "drill": "练习",
        "shape": "形状",
        "reference": "参考实现",
        "regime": "类型, FLOP/B",
        "roof": "上限",
        "memory-bound": "访存受限",
        "compute-bound": "计算受限",
        "of_limit": "占上限",
        "graph_ratio": "graph 比值",
        "unit": "单位",
        "gate": "正确性检查",
    },
}


if __name__ == "__main__":
    sys.exit(main())
