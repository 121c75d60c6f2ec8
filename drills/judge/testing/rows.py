"""What the suites whose inputs are rows (T2's and T5's softmax) share: rows far below -1e30,
the advice for row offsets past 2^31 elements, and the benchmark."""

import torch

from drills import spec
from drills.bench import Bench, Shape
from drills.judge.testing.compare import DTYPE_NAMES, Tolerance

# (shift, spike) for rows below -1e30, a padding some call minus infinity: one element at -2^120
# and the rest at -2^121 (randn vanishes beside them). Every value a power of two, so that its
# product with log2(e) is exact: a kernel that scales x for exp2 before it subtracts the max
# (one FMA on a GPU, whose unrounded product misses the rounded max by up to 2^96 there, and
# exp2(2^96) is inf) gets these rows as exactly as any other. One-hot, so that the row's sum is
# 1: a kernel that divides through max + log(sum) (which rounds back to the max there) does too.
ONE_HOT_FAR = (-(2.0**121), 2.0**120)


def int64_advice(tensor: str, stride: str) -> str:
    """What an int32 row offset into `tensor` does once a row starts past 2^31 elements."""
    return (
        f"the last row of {tensor} starts past 2^31 elements, where row * {stride} wraps "
        f"negative in int32: compute row offsets in int64, row.to(tl.int64) * {stride}."
    )


def softmax_bench(
    declared: spec.Spec, tolerances: dict[torch.dtype, Tolerance], reference: str = ""
) -> Bench:
    """A softmax's benchmark over the shapes its spec declares (separate from the test shapes),
    against torch.softmax, in GB/s; `reference` is the file of solutions/ timed, where it is
    not the drill's own."""
    return Bench(
        entry="softmax",
        shapes=[bench_shape(**p) for p in declared.bench_shapes],
        make_inputs=bench_rows,
        torch_fn=lambda x: torch.softmax(x, dim=-1),
        torch_name="torch.softmax",
        unit="GB/s",
        # per element: the max's compare, the subtraction, exp, the sum's add and the division
        flops=lambda s: 5 * s.params["rows"] * s.params["cols"],
        # read x once, write the result once: the least any softmax moves
        bytes_moved=lambda s: 2 * s.params["rows"] * s.params["cols"] * s.params["dtype"].itemsize,
        tolerance=lambda s: tolerances[s.params["dtype"]],
        size_name="columns per row",
        reference=reference,
    )


def bench_shape(rows: int, cols: int, dtype: str) -> Shape:
    """A benchmark shape of `rows` rows of `cols` columns, one series per dtype ("fp32")."""
    dtypes = {name: dtype for dtype, name in DTYPE_NAMES.items()}
    params = {"rows": rows, "cols": cols, "dtype": dtypes[dtype]}
    return Shape(f"{dtype} {rows}x{cols}", cols, params, series=dtype)


def bench_rows(shape: Shape) -> tuple[torch.Tensor]:
    """The benchmark's input of a shape: random rows on the GPU."""
    p = shape.params
    return (torch.randn(p["rows"], p["cols"], device="cuda", dtype=p["dtype"]),)
