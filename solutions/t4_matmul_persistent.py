"""t4, beyond the drill: a persistent matmul that reads and writes tiles through tensor
descriptors, for Hopper GPUs.

One program per SM loops over the tiles of c in the drill's grouped order, and the TMA unit
copies each tile to shared memory in one request, with zeros past the edges (no pointer blocks,
no masks). On an H200 it closes the gap that b = w.t() leaves in the drill's matmul_kernel
(content/experiments/t4_persistent_parts.py and t4_persistent_shapes.py); with a row-major b the
gain is smaller.

For a few rows of a (M <= 16), too few tiles to fill the SMs, a second kernel splits K between
the programs of each tile (matmul_split_k_kernel). matmul and matmul_bias_gelu here take one of
the two on a Hopper GPU wherever tensor descriptors can describe the operands, and the drill's
reference (solutions/t4_matmul.py) for everything else. After the first call for a shape, they
launch the compiled kernel directly, for host time close to cuBLAS's. `make bench` times this
module as T4's reference. The drill never asks for any of it.
"""

import functools

import torch
import triton
import triton.language as tl

from solutions.t4_matmul import (
    INTERPRETER_CONFIG,
    INTERPRETING,
    check_bias,
    check_inputs,
    gelu,
    grouped_tile,
)
from solutions.t4_matmul import launch as launch_tiled

PERSISTENT_GPU_CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8},
        num_stages=stages,
        num_warps=warps,
    )
    # 3 stages at most for the large tiles: c's tile needs shared memory too, for its store
    for bm, bn, stages, warps in [
        (128, 256, 3, 8),
        (256, 128, 3, 8),
        (128, 128, 4, 8),
        (128, 128, 4, 4),
        (128, 64, 4, 4),
        (64, 128, 4, 4),
        (64, 64, 4, 4),
    ]
]
PERSISTENT_CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else PERSISTENT_GPU_CONFIGS


@triton.jit
def epilogue(acc, bias_ptr, offs_bn, N, BLOCK_SIZE_N: tl.constexpr):
    """A finished fp32 tile of c as it is stored: with gelu(acc + bias) where there is a bias,
    in fp16 (a descriptor's store clips it at the edges)."""
    if bias_ptr is not None:
        offs_n = offs_bn + tl.arange(0, BLOCK_SIZE_N)
        bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
        acc = gelu(acc + bias.to(tl.float32)[None, :])
    return acc.to(tl.float16)


@triton.jit
def operand_descriptors(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_b,
    stride_cm,
    B_KMAJOR: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    """Tensor descriptors of a, b and c, by tiles of the block sizes. A descriptor names a
    whole tile: the TMA unit copies it to shared memory in one request, filling with zeros
    past the edges, so no pointer blocks and no masks."""
    a_desc = tl.make_tensor_descriptor(
        a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K]
    )
    if B_KMAJOR:  # describe w itself, [N, K] row-major, and transpose its tiles in the dot
        b_desc = tl.make_tensor_descriptor(
            b_ptr, shape=[N, K], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K]
        )
    else:
        b_desc = tl.make_tensor_descriptor(
            b_ptr, shape=[K, N], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N]
        )
    c_desc = tl.make_tensor_descriptor(
        c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N]
    )
    return a_desc, b_desc, c_desc


@triton.jit
def b_tile(b_desc, k, offs_bn, B_KMAJOR: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    """The [BLOCK_SIZE_K, BLOCK_SIZE_N] tile of b at K block k and column offs_bn."""
    if B_KMAJOR:
        b = b_desc.load([offs_bn, k * BLOCK_SIZE_K]).T
    else:
        b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
    return b


@triton.autotune(configs=PERSISTENT_CONFIGS, key=["M", "N", "K", "B_KMAJOR"])
@triton.jit
def matmul_persistent_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    M,
    N,
    K,
    stride_am,
    stride_b,  # between rows of b, or of w when b = w.t()
    stride_cm,
    B_KMAJOR: tl.constexpr,  # b = w.t(): K is b's contiguous dimension
    NUM_SMS: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    a_desc, b_desc, c_desc = operand_descriptors(
        a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm,
        B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
    )  # fmt: skip

    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    # the same grouped order, walked by NUM_SMS programs at once; flatten asks the compiler to
    # pipeline the two loops as one, across tiles (on the H200 it made little difference)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
            acc = tl.dot(a, b_tile(b_desc, k, offs_bn, B_KMAJOR, BLOCK_SIZE_K), acc)
        c_desc.store([offs_am, offs_bn], epilogue(acc, bias_ptr, offs_bn, N, BLOCK_SIZE_N))


# A few rows of a make too few tiles of c to fill the SMs (16x4096x4096: 64 tiles of 16x64 for
# the H200's 132 SMs), and each tile's program then streams all of K alone. Split K: SPLIT_K
# programs share each tile, each over a slice of K. On an H200 at 16x4096x4096 this took the
# persistent kernel's 0.64x of cuBLAS to 0.94x by do_bench; 1000x3000x2000 only lost by it
# (content/experiments/t4_split_k.out, and t4_stream_k.out for stream-K, which did worse).
SPLIT_K = 4
SPLIT_K_CONFIG = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64}
SPLIT_K_LAUNCH = {"num_stages": 4, "num_warps": 4}
SPLIT_K_MAX_M = SPLIT_K_CONFIG["BLOCK_SIZE_M"]  # a's rows that one row of its tiles covers


@triton.jit
def matmul_split_k_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    partial_ptr,  # [tiles, SPLIT, BLOCK_SIZE_M * BLOCK_SIZE_N] fp32: each program's sum
    arrived_ptr,  # [tiles] int32, 0 on entry and on exit: the programs done with each tile
    M,
    N,
    K,
    stride_am,
    stride_b,
    stride_cm,
    B_KMAJOR: tl.constexpr,
    SPLIT: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    a_desc, b_desc, c_desc = operand_descriptors(
        a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm,
        B_KMAJOR, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K,
    )  # fmt: skip
    tile = tl.program_id(axis=0)
    part = tl.program_id(axis=1)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    offs_am = (tile // num_pid_n) * BLOCK_SIZE_M
    offs_bn = (tile % num_pid_n) * BLOCK_SIZE_N
    k_blocks = tl.cdiv(K, BLOCK_SIZE_K)
    share = tl.cdiv(k_blocks, SPLIT)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(part * share, tl.minimum((part + 1) * share, k_blocks)):
        a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
        acc = tl.dot(a, b_tile(b_desc, k, offs_bn, B_KMAJOR, BLOCK_SIZE_K), acc)

    # Each program leaves its sum in its own slot and counts itself in; the last to arrive
    # adds the slots and writes the tile. Nobody waits, so the order in which the GPU starts
    # programs does not matter.
    in_tile = (
        tl.arange(0, BLOCK_SIZE_M)[:, None] * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)[None, :]
    )
    slots = partial_ptr + tile.to(tl.int64) * SPLIT * BLOCK_SIZE_M * BLOCK_SIZE_N + in_tile
    tl.store(slots + part * BLOCK_SIZE_M * BLOCK_SIZE_N, acc)
    tl.debug_barrier()  # every thread's share of the slot is stored before the count says so
    # acq_rel: the program whose add makes the count SPLIT sees every slot stored before it
    if tl.atomic_add(arrived_ptr + tile, 1, sem="acq_rel") == SPLIT - 1:
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for other in range(SPLIT):
            # .cg reads L2, where the other programs' stores went, and not this SM's L1
            acc += tl.load(slots + other * BLOCK_SIZE_M * BLOCK_SIZE_N, cache_modifier=".cg")
        c_desc.store([offs_am, offs_bn], epilogue(acc, bias_ptr, offs_bn, N, BLOCK_SIZE_N))
        tl.store(arrived_ptr + tile, 0)  # ready for the next launch


# The arrival counts of matmul_split_k_kernel, by device, stream and number of tiles: zeroed
# once, then left at 0 by each launch. A stream of their own, so that launches on two streams
# never share them.
ARRIVALS: dict[tuple, torch.Tensor] = {}


def arrival_counts(a: torch.Tensor, tiles: int) -> torch.Tensor:
    stream = torch.cuda.current_stream(a.device).cuda_stream if a.is_cuda else 0
    key = (a.device, stream, tiles)
    if key not in ARRIVALS:
        ARRIVALS[key] = torch.zeros(tiles, dtype=torch.int32, device=a.device)
    return ARRIVALS[key]


def launch_split_k(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None
) -> None:
    """matmul_split_k_kernel on a, b and out, which descriptor_layout must accept."""
    b_kmajor = described_layout(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    block_m, block_n = SPLIT_K_CONFIG["BLOCK_SIZE_M"], SPLIT_K_CONFIG["BLOCK_SIZE_N"]
    tiles = triton.cdiv(M, block_m) * triton.cdiv(N, block_n)
    partials = torch.empty(
        tiles * SPLIT_K * block_m * block_n, dtype=torch.float32, device=a.device
    )
    counts = arrival_counts(a, tiles)
    stride_b = b.stride(1 if b_kmajor else 0)
    args = (a, b, out, bias, partials, counts, M, N, K, a.stride(0), stride_b, out.stride(0))
    triton.set_allocator(descriptor_scratch)
    # the same shapes as a persistent launch's key, for another kernel
    key = ("split K", *launch_key(a, b, out, bias))
    if launch_compiled(key, args):
        return
    named = dict(SPLIT_K_CONFIG, B_KMAJOR=b_kmajor, SPLIT=SPLIT_K)
    kernel = matmul_split_k_kernel
    compiled = kernel[(tiles, SPLIT_K)](*args, **named, **SPLIT_K_LAUNCH)
    remember_launch(key, kernel, compiled, (tiles, SPLIT_K), args, named)


@functools.cache
def is_hopper(device: torch.device) -> bool:
    """An NVIDIA GPU of compute capability 9.x: it has the TMA unit, and it is where the
    persistent kernel was measured (newer GPUs have TMA too, with other shared-memory sizes)."""
    return (
        not INTERPRETING
        and device.type == "cuda"
        and torch.version.hip is None
        and torch.cuda.get_device_capability(device)[0] == 9
    )


def descriptor_layout(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool | None:
    """Whether b = w.t() (True) or row-major (False) when tensor descriptors can describe all
    three tensors: each row contiguous (or each column of b), other strides positive and, like
    every start address, on 16-byte boundaries. None when they cannot."""
    if b.stride(1) == 1:
        b_kmajor, stride_b = False, b.stride(0)
    elif b.stride(0) == 1:
        b_kmajor, stride_b = True, b.stride(1)
    else:
        return None
    aligned = all(t.data_ptr() % 16 == 0 for t in (a, b, out)) and all(
        stride > 0 and stride % 8 == 0 for stride in (a.stride(0), stride_b, out.stride(0))
    )
    return b_kmajor if aligned and a.stride(1) == 1 and out.stride(1) == 1 else None


def described_layout(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> bool:
    """descriptor_layout, for operands it must accept: a ValueError names what it refused."""
    b_kmajor = descriptor_layout(a, b, out)
    if b_kmajor is None:
        raise ValueError(
            "tensor descriptors cannot describe these operands: a, c and b (or w, for b = w.t()) "
            "need contiguous rows, and row strides and start addresses on 16-byte boundaries"
        )
    return b_kmajor


def descriptor_scratch(size: int, alignment: int, stream) -> torch.Tensor:
    """Memory for the descriptors the kernel writes on the device, which Triton asks the host
    for at each launch (on the current device, where Triton launches)."""
    return torch.empty(size, dtype=torch.int8, device="cuda")


# The kernel Triton compiled for a call, its grid and its constexprs, by launch_key (with
# "split K" in front for the split kernel): a second call with the same key launches that kernel
# directly. The autotuner, the JIT's argument binding and its cache lookup cost more host time
# than the kernel takes at small shapes (content/t4_notes.md, host time). Forcing other configs
# on the kernel needs a clear() here.
COMPILED_LAUNCHES: dict[tuple, tuple] = {}


def launch_key(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None):
    """What the compiled kernel and its grid depend on: the device, shapes and strides (the
    autotuner's key and Triton's specialization of integers), whether there is a bias, and
    which pointers start on 16-byte boundaries (Triton's specialization of pointers)."""
    pointers = (a, b, out) if bias is None else (a, b, out, bias)
    return (
        a.device,
        a.shape,
        b.shape,
        a.stride(),
        b.stride(),
        out.stride(),
        bias is None,
        tuple(t.data_ptr() % 16 == 0 for t in pointers),
    )


def launch_persistent(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None
) -> None:
    """matmul_persistent_kernel on a, b and out, which descriptor_layout must accept."""
    launch_described(a, b, out, bias, described_layout(a, b, out))


def launch_described(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None, b_kmajor: bool
) -> None:
    """launch_persistent once descriptor_layout has accepted the operands and said b_kmajor."""
    M, K = a.shape
    N = b.shape[1]
    args = (a, b, out, bias, M, N, K, a.stride(0), b.stride(1 if b_kmajor else 0), out.stride(0))
    triton.set_allocator(descriptor_scratch)  # replaces any allocator set before, in this thread
    key = launch_key(a, b, out, bias)
    if launch_compiled(key, args):
        return
    # on the interpreter, a few programs that each still loop over several tiles
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 4
    grid = lambda META: (
        min(num_sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])),
    )
    kernel = matmul_persistent_kernel
    compiled = kernel[grid](*args, B_KMAJOR=b_kmajor, NUM_SMS=num_sms)
    if compiled is not None:  # the interpreter compiles nothing, and autotunes nothing
        config = kernel.best_config.kwargs
        named = dict(config, B_KMAJOR=b_kmajor, NUM_SMS=num_sms)
        remember_launch(key, kernel, compiled, grid(config), args, named)


def launch_compiled(key: tuple, args: tuple) -> bool:
    """Launch on args the kernel a first call with this key compiled, if there was one: whether
    there was."""
    if key not in COMPILED_LAUNCHES:
        return False
    compiled, grid, constexprs = COMPILED_LAUNCHES[key]
    compiled[grid](*args, *constexprs)
    return True


def remember_launch(key: tuple, kernel, compiled, grid: tuple, args: tuple, named: dict) -> None:
    """Keep what a first call compiled (None on the interpreter), its grid and its constexprs
    (named), for launch_compiled."""
    if compiled is not None:
        # the arguments after args, in the kernel's order: Triton's launcher takes them all
        constexprs = [named[name] for name in kernel.arg_names[len(args) :]]
        COMPILED_LAUNCHES[key] = (compiled, grid + (1,) * (3 - len(grid)), constexprs)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(a, b, out)
    return launch(a, b, out, bias=None)


def matmul_bias_gelu(
    a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, out: torch.Tensor | None = None
) -> torch.Tensor:
    """gelu(a @ b + bias), bias added to every row, all in the kernel's epilogue."""
    check_inputs(a, b, out)
    check_bias(b, bias)
    return launch(a, b, out, bias=bias.contiguous())


def launch(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None, bias: torch.Tensor | None
) -> torch.Tensor:
    """The persistent kernel on a Hopper GPU where tensor descriptors can describe the
    operands, the drill's kernel otherwise."""
    if out is None:
        out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float16, device=a.device)
    # on an H200 the persistent kernel is ahead of matmul_kernel at every large shape, by the
    # most with b = w.t() (content/experiments/t4_persistent_shapes.out)
    b_kmajor = descriptor_layout(a, b, out) if is_hopper(a.device) else None
    if b_kmajor is None:
        return launch_tiled(a, b, out, bias)
    if a.shape[0] <= SPLIT_K_MAX_M:
        launch_split_k(a, b, out, bias)
    else:
        launch_described(a, b, out, bias, b_kmajor)
    return out
