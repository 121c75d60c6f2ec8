"""T4's persistent kernel and its split-K kernel (solutions/t4_matmul_persistent.py, lesson §8):
the benchmark's reference, which the drill never grades, so it is checked here: on the
interpreter or a GPU, against float64, for both layouts of b, edges and bias + GELU (on a GPU
with every config forced in turn; split K twice in a row), which layouts they accept, and that
matmul picks each where it should."""

import pytest
import torch
import triton

from drills import catalog, runtime
from drills.judge.testing import device, needs_gpu
from drills.loading import load

# triton 3.4 and 3.5's interpreter checked a descriptor's strides in elements, not bytes
OLD_INTERPRETER = tuple(int(x) for x in triton.__version__.split(".")[:2]) < (3, 6)


@pytest.fixture(scope="module")
def ref():
    runtime.current()  # before any kernel is decorated
    return load(catalog.ROOT / "solutions" / "t4_matmul_persistent.py")


def operands(M, N, K, *, b_t, row_gap=0, seed=0):
    """a [M, K] and b [K, N], b = w.t() or row-major, with row_gap unused columns after each
    row of b (or of w), so b's row stride is not its width."""
    gen = torch.Generator(device=device()).manual_seed(seed)
    a = torch.randn(M, K, generator=gen, device=device()).half()
    rows, cols = (N, K) if b_t else (K, N)
    w = torch.randn(rows, cols + row_gap, generator=gen, device=device()).half()[:, :cols]
    return a, (w.t() if b_t else w)


def described_case(M, N, K, b_t, row_gap, with_bias):
    """a, b, the bias (or None) and their float64 result, for a kernel that reads them through
    tensor descriptors (skipped where the interpreter refuses such strides)."""
    a, b = operands(M, N, K, b_t=b_t, row_gap=row_gap)
    if (
        not runtime.current().is_gpu
        and OLD_INTERPRETER
        and any(s % 16 for s in (K, N, max(b.stride())))
    ):
        pytest.skip(
            "triton < 3.6's interpreter asks descriptor strides for multiples of 16 elements"
        )
    bias = torch.randn(N, device=device()).half() if with_bias else None
    expected = a.double() @ b.double()
    if bias is not None:
        expected = torch.nn.functional.gelu(expected + bias.double())
    return a, b, bias, expected


@pytest.mark.parametrize(
    "M, N, K, b_t, row_gap, bias",
    [
        (64, 48, 64, True, 0, False),
        (100, 72, 40, False, 0, False),
        (100, 72, 40, True, 0, True),
        (33, 24, 104, False, 8, False),  # edges in M, N and K of every tile; b's rows have gaps
        (33, 24, 200, True, 16, True),
        pytest.param(1000, 3000, 2000, True, 0, True, marks=needs_gpu("large")),
        pytest.param(1000, 3000, 2000, False, 0, False, marks=needs_gpu("large")),
    ],
)
def test_persistent_kernel_matches_float64(ref, M, N, K, b_t, row_gap, bias):
    a, b, bias, expected = described_case(M, N, K, b_t, row_gap, bias)
    assert ref.descriptor_layout(a, b, a.new_empty(M, N)) is b_t
    kernel = ref.matmul_persistent_kernel
    configs = kernel.configs
    try:
        for config in configs:  # one on the interpreter, every one on a GPU
            kernel.configs = [config]
            kernel.cache.clear()
            ref.COMPILED_LAUNCHES.clear()
            out = torch.full((M, N), float("nan"), device=device()).half()
            ref.launch_persistent(a, b, out, bias)
            torch.testing.assert_close(
                out.double(), expected.half().double(), atol=1e-2, rtol=2e-3, msg=str(config)
            )
    finally:
        kernel.configs = configs
        kernel.cache.clear()
        ref.COMPILED_LAUNCHES.clear()


@pytest.mark.parametrize(
    "M, N, K, b_t, row_gap, bias",
    [
        (5, 64, 256, False, 0, False),  # K in four slices of one block each
        (16, 72, 200, True, 8, True),  # slices of unequal length; N past a tile's edge
        (33, 24, 104, False, 0, True),  # three rows of tiles; two programs get no K block
        pytest.param(16, 4096, 4096, False, 0, False, marks=needs_gpu("large")),
        pytest.param(16, 4096, 4096, True, 0, True, marks=needs_gpu("large")),
    ],
)
def test_split_k_kernel_matches_float64_twice_in_a_row(ref, M, N, K, b_t, row_gap, bias):
    a, b, bias, expected = described_case(M, N, K, b_t, row_gap, bias)
    # the second launch finds the arrival counts where the first left them
    for launch in ("first", "second"):
        out = torch.full((M, N), float("nan"), device=device()).half()
        ref.launch_split_k(a, b, out, bias)
        torch.testing.assert_close(
            out.double(), expected.half().double(), atol=1e-2, rtol=2e-3, msg=launch
        )


def test_descriptor_layout_accepts_only_what_tma_can_read(ref):
    a, b = operands(64, 48, 64, b_t=False)
    out = a.new_empty(64, 48)
    assert ref.descriptor_layout(a, b, out) is False
    assert ref.descriptor_layout(a, operands(64, 48, 64, b_t=True)[1], out) is True
    refused = {
        "a = u.t()": (a.t().contiguous().t(), b, out),
        "c = v.t()": (a, b, out.t().contiguous().t()),
        "b[:, ::2]": (a, a.new_empty(64, 96)[:, ::2], out),
        "a's rows 100 wide (200 bytes)": (*operands(64, 48, 100, b_t=False), out),
        "a starting 2 bytes in": (a.new_empty(64 * 64 + 1)[1:].view(64, 64), b, out),
        "a = x.expand(64, 64), row stride 0": (a[:1].expand(64, 64), b, out),
    }
    for name, (a_, b_, out_) in refused.items():
        assert ref.descriptor_layout(a_, b_, out_) is None, name
        for launch in (ref.launch_persistent, ref.launch_split_k):
            with pytest.raises(ValueError, match="tensor descriptors cannot describe"):
                launch(a_, b_, out_, None)


@needs_gpu("the persistent kernels are chosen on a Hopper GPU")
def test_matmul_chooses_its_kernel_by_layout_and_rows_on_hopper(ref, monkeypatch):
    if not ref.is_hopper(torch.device("cuda")):
        pytest.skip("the persistent kernel is used on Hopper GPUs only (compute capability 9.x)")
    ran = []
    for launcher in ("launch_described", "launch_split_k", "launch_tiled"):
        real = getattr(ref, launcher)
        spy = lambda *args, real=real, launcher=launcher: ran.append(launcher) or real(*args)
        monkeypatch.setattr(ref, launcher, spy)
    a, b = operands(256, 256, 256, b_t=False, seed=1)
    cases = {
        "b = w.t()": (a, operands(256, 256, 256, b_t=True, seed=1)[1], "launch_described"),
        "row-major b": (a, b, "launch_described"),
        "a = u.t(), no descriptor": (a.t().contiguous().t(), b, "launch_tiled"),
        "16 rows of a": (*operands(16, 256, 256, b_t=True, seed=1), "launch_split_k"),
        "17 rows of a": (*operands(17, 256, 256, b_t=True, seed=1), "launch_described"),
    }
    for name, (a_, b_, chosen) in cases.items():
        ran.clear()
        out = ref.matmul(a_, b_)
        assert ran == [chosen], name
        torch.testing.assert_close(
            out.double(), (a_.double() @ b_.double()).half().double(), atol=1e-2, rtol=2e-3
        )


def test_launch_key_tells_apart_what_a_compiled_kernel_depends_on(ref):
    a, b = operands(64, 48, 64, b_t=False)
    out = a.new_empty(64, 48)
    bias = a.new_empty(49)
    key = ref.launch_key(a, b, out, bias[:48])
    assert ref.launch_key(a.clone(), b.clone(), out.clone(), bias[:48].clone()) == key
    others = {
        "no bias": (a, b, out, None),
        "bias starting 2 bytes in": (a, b, out, bias[1:]),
        "b = w.t()": (a, operands(64, 48, 64, b_t=True)[1], out, bias[:48]),
        "another K": (*operands(64, 48, 80, b_t=False), out, bias[:48]),
    }
    for name, operands_ in others.items():
        assert ref.launch_key(*operands_) != key, name


@needs_gpu("only a GPU compiles, so only there is a launch cached")
def test_a_cached_launch_computes_what_the_autotuned_one_does(ref):
    if not ref.is_hopper(torch.device("cuda")):
        pytest.skip("the persistent kernel is used on Hopper GPUs only (compute capability 9.x)")
    kernel = ref.matmul_persistent_kernel
    ref.COMPILED_LAUNCHES.clear()
    backing = torch.randn(1000 + 8, device=device()).half()
    # the same shapes twice, then with a bias 2 bytes past a 16-byte boundary: two kernels
    aligned, two_bytes_in = backing[:1000], backing[1:1001]
    for seed, bias, cached in [(1, aligned, False), (2, aligned, True), (3, two_bytes_in, False)]:
        a, b = operands(200, 1000, 96, b_t=False, seed=seed)
        key = ref.launch_key(a, b, a.new_empty(200, 1000), bias)
        assert (key in ref.COMPILED_LAUNCHES) is cached, f"seed {seed}"
        kernel.cache.clear()
        out = ref.matmul_bias_gelu(a, b, bias)
        expected = torch.nn.functional.gelu(a.double() @ b.double() + bias.double())
        torch.testing.assert_close(out.double(), expected.half().double(), atol=1e-2, rtol=2e-3)
        assert key in ref.COMPILED_LAUNCHES
        # a cached launch leaves the autotuner alone; a first one fills its cache
        assert bool(kernel.cache) is not cached, f"seed {seed}"
    assert len(ref.COMPILED_LAUNCHES) == 2


@needs_gpu("only a GPU compiles, so only there is a launch cached")
def test_a_cached_split_k_launch_computes_what_the_first_did(ref):
    if not ref.is_hopper(torch.device("cuda")):
        pytest.skip("the split kernel is used on Hopper GPUs only (compute capability 9.x)")
    ref.COMPILED_LAUNCHES.clear()
    bias = torch.randn(256, device=device()).half()
    for seed, cached in [(1, False), (2, True)]:
        a, b = operands(16, 256, 512, b_t=True, seed=seed)
        key = ("split K", *ref.launch_key(a, b, a.new_empty(16, 256), bias))
        assert (key in ref.COMPILED_LAUNCHES) is cached, f"seed {seed}"
        out = ref.matmul_bias_gelu(a, b, bias)
        expected = torch.nn.functional.gelu(a.double() @ b.double() + bias.double())
        torch.testing.assert_close(out.double(), expected.half().double(), atol=1e-2, rtol=2e-3)
    assert list(ref.COMPILED_LAUNCHES) == [key]
