"""What the suites whose inputs are rows (T2's and T5's softmax) share: the advice for row
offsets past 2^31 elements, and the benchmark's shapes and inputs."""

import torch

from drills.bench import Shape
from drills.judge.testing.compare import DTYPE_NAMES


def int64_advice(tensor: str, stride: str) -> str:
    """What an int32 row offset into `tensor` does once a row starts past 2^31 elements."""
    return (
        f"the last row of {tensor} starts past 2^31 elements, where row * {stride} wraps "
        f"negative in int32: compute row offsets in int64, row.to(tl.int64) * {stride}."
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
