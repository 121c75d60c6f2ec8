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
small shape's time. Throughput is reported against a hardware limit: the copy bandwidth
measured in the same run (the faster of torch's copy and a Triton copy kernel), or the GPU's
specified fp16 tensor-core peak where TENSOR_PEAKS knows the GPU, else cuBLAS at a large square
fp16 matmul measured in the same run. A row above its limit is flagged as suspect: the timing
or the limit is off.

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
    unit: str  # "GB/s" or "TFLOP/s"
    work: Callable[[Shape], float]  # bytes moved, or floating-point operations, per call
    tolerance: Callable[[Shape], object]  # drills.judge.testing.Tolerance for the gate
    size_name: str = "size"  # what Shape.size counts, for the plot's axis
    reference: str = ""  # the reference to time, a file of solutions/ (the drill's by default)


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
    of_limit: float | None
    unit: str
    limit: float
    limit_name: str
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


def _median_ms(fn, refresh) -> float:
    """The median time of fn's calls, as triton.testing.do_bench takes it (L2 flushed before
    each call; 25 ms of warm-up calls, then 100 ms of timed ones), with refresh() before each
    call, untimed: it draws new values into the inputs in place, so that no call can be served a
    result kept from an earlier one."""
    import torch

    def timed_calls(count: int) -> list[float]:
        events = []
        for _ in range(count):
            refresh()
            _flush_buffer().zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            events.append((start, end))
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in events]

    estimate = statistics.median(timed_calls(5))
    timed_calls(max(1, int(25 / estimate)))
    return statistics.median(timed_calls(max(5, int(100 / estimate))))


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
    """New values, in place, for a benchmark's inputs (every drill's are drawn from randn)."""

    def refresh() -> None:
        for t in args:
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


# Dense fp16 tensor-core TFLOP/s with fp32 accumulation, by the name torch gives the GPU: half
# the "with sparsity" figure of NVIDIA's H100 and H200 specifications (1,979 TFLOP/s for the
# SXM boards). A GPU not named here gets cuBLAS's measured rate as its limit, which cuBLAS and
# a good kernel can pass at some shapes (the H200 runs of 2026-12-04 in content/bench/ did).
TENSOR_PEAKS = {"NVIDIA H200": 989.4, "NVIDIA H100 80GB HBM3": 989.4}


def specified_peak(gpu: str) -> dict[str, float]:
    """The GPU's dense fp16 peak from TENSOR_PEAKS, as a way to the TFLOP/s limit, if known."""
    peak = TENSOR_PEAKS.get(gpu)
    return {f"NVIDIA's specification of the {gpu}": peak} if peak else {}


def matmul_peaks() -> dict[str, float]:
    """TFLOP/s of cuBLAS on an 8192^3 fp16 matmul with fp32 accumulation, and the GPU's
    specified peak where the bench knows it (the larger is the limit: cuBLAS is not the roof)."""
    import torch

    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    measured = 2 * 8192**3 / _median_ms(lambda: a @ b, refresher((a, b))) / 1e9
    return {"cuBLAS 8192^3": measured, **specified_peak(torch.cuda.get_device_name())}


LIMITS = {
    "GB/s": ("copy bandwidth", copy_bandwidths),
    "TFLOP/s": ("fp16 matmul peak", matmul_peaks),
}


@dataclass(frozen=True)
class Limit:
    value: float
    what: str  # "copy bandwidth"
    how: str  # the way that gave it, and the others' values

    @property
    def name(self) -> str:
        return f"{self.what}, by {self.how}"


def measure_limit(unit: str) -> Limit:
    """The unit's limit on this GPU: the largest of the ways LIMITS has to it."""
    what, measure = LIMITS[unit]
    ways = measure()
    best = max(ways, key=ways.get)
    others = [f"{way} {value:.0f}" for way, value in ways.items() if way != best]
    return Limit(ways[best], what, best + (f" ({', '.join(others)})" if others else ""))


def suspect(rates: dict[str, float | None], limit: Limit) -> str:
    """What in a row goes past its limit: a timing that missed part of the work, or a limit
    that is not the GPU's (a copy, say, where reads outnumber writes). Empty when nothing
    does."""
    above = [
        f"{name} at {rate / limit.value:.0%}"
        for name, rate in rates.items()
        if rate and rate > limit.value
    ]
    return f"suspect: {', '.join(above)} of the {limit.what}" if above else ""


def load_bench(drill: catalog.Drill) -> Bench | None:
    from drills.loading import load

    return getattr(load(drill.test_file), "BENCH", None)


def _gate(fn, torch_fn, args, tolerance) -> str:
    """ "ok" when fn matches torch on these inputs, else why it does not."""
    from drills import NotStarted
    from drills.judge.testing import compare

    try:
        got = fn(*args)
    except NotStarted:
        return "not started"
    except Exception as e:  # noqa: BLE001 - any failure keeps this kernel out of the timings
        return f"raised {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    report = compare(got, torch_fn(*args), tolerance)
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
    limit = limits[bench.unit]
    today = datetime.date.today().isoformat()
    rows = []
    for shape in bench.shapes:
        args = bench.make_inputs(shape)
        refresh = refresher(args)
        per_ms = bench.work(shape) / (1e6 if bench.unit == "GB/s" else 1e9)
        tolerance = bench.tolerance(shape)
        gate = import_problem or _gate(under_test, bench.torch_fn, args, tolerance)
        contenders = [reference, bench.torch_fn] + ([under_test] if gate == "ok" else [])
        calls = [functools.partial(f, *args) for f in contenders]
        ref_ms, torch_ms, *tested_ms = _interleaved_ms(calls, refresh)
        ref_graph_ms, torch_graph_ms, *tested_graph_ms = [_graph_ms(call) for call in calls]
        # once more on new values: a kernel right before timing must still be right after it
        refresh()
        if gate == "ok" and (after := _gate(under_test, bench.torch_fn, args, tolerance)) != "ok":
            gate, tested_ms, tested_graph_ms = f"after timing, {after}", [], []
        if (after := _gate(reference, bench.torch_fn, args, tolerance)) != "ok":
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
                impl_rate / limit.value if impl_rate else None,
                bench.unit,
                limit.value,
                limit.name,
                gate,
                versions["gpu"],
                versions["torch"],
                versions["triton"],
                today,
                tested_graph_ms[0] if tested_graph_ms else None,
                ref_graph_ms,
                torch_graph_ms,
                suspect(rates, limit),
            )
        )
    return rows


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def terminal_table(rows: list[Row], impl: str, words: dict):
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    left = (words["drill"], words["shape"], words["unit"], words["gate"])
    for name in (
        words["drill"],
        words["shape"],
        f"{impl} ms",
        impl,
        words["reference"],
        "torch",
        f"{impl}/torch",
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
    ax.axhline(mine[0].limit, linestyle=":", color="grey", label=mine[0].limit_name)
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


def write_reports(rows: list[Row], impl: str, versions: dict) -> Path:
    import jinja2

    REPORTS.mkdir(exist_ok=True)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    drills = sorted({r.drill for r in rows}, key=[d.id for d in catalog.DRILLS].index)
    template = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"), autoescape=True
    ).get_template("bench.html.j2")
    plots = {d: plot_png(rows, d) for d in drills}
    path = REPORTS / f"bench-{impl}-{stamp}.html"
    for drill, png in plots.items():
        if png:
            path.with_name(f"{path.stem}-{drill}.png").write_bytes(base64.b64decode(png))
    html = template.render(
        rows=rows, impl=impl, versions=versions, drills=drills, plots=plots, stamp=stamp
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
    units = {b.unit for b in (load_bench(d) for d in selected) if b}
    limits = {unit: measure_limit(unit) for unit in units}
    out = console()
    out.print(
        words["title"].format(impl=args.impl, gpu=versions["gpu"])
        + f" · torch {versions['torch']} · triton {versions['triton']} · "
        f"{datetime.date.today().isoformat()}"
    )
    for unit, limit in limits.items():
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
        "of_limit": "of limit",
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
        "of_limit": "占上限",
        "graph_ratio": "graph 比值",
        "unit": "单位",
        "gate": "正确性检查",
    },
}


if __name__ == "__main__":
    sys.exit(main())
