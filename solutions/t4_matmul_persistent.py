"""t4, beyond the drill: a persistent matmul that reads and writes tiles through tensor
descriptors, for Hopper GPUs.

One program per SM loops over the tiles of c in the drill's grouped order, and the TMA unit
copies each tile to shared memory in one request, with zeros past the edges (no pointer blocks,
no masks). On an H200 it closes the gap that b = w.t() leaves in the drill's matmul_kernel
(content/experiments/t4_persistent_parts.py and t4_persistent_shapes.py); with a row-major b the
gain is small and not always there.

matmul and matmul_bias_gelu here take this kernel for b = w.t() on a Hopper GPU, and the drill's
reference (solutions/t4_matmul.py) for everything else: `make bench` times this module as T4's
reference. The drill never asks for any of it.
"""

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
    # a descriptor names a whole tile: the TMA unit copies it to shared memory in one request,
    # filling with zeros past the edges, so no pointer blocks and no masks
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
            if B_KMAJOR:
                b = b_desc.load([offs_bn, k * BLOCK_SIZE_K]).T
            else:
                b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
            acc = tl.dot(a, b, acc)
        if bias_ptr is not None:
            offs_n = offs_bn + tl.arange(0, BLOCK_SIZE_N)
            bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
            acc = gelu(acc + bias.to(tl.float32)[None, :])
        c_desc.store([offs_am, offs_bn], acc.to(tl.float16))  # clipped at the edges


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


def launch_persistent(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor, bias: torch.Tensor | None
) -> None:
    """matmul_persistent_kernel on a, b and out, which descriptor_layout must accept."""
    M, K = a.shape
    N = b.shape[1]
    b_kmajor = descriptor_layout(a, b, out)
    if b_kmajor is None:
        raise ValueError(
            "tensor descriptors cannot describe these operands: a, c and b (or w, for b = w.t()) "
            "need contiguous rows, and row strides and start addresses on 16-byte boundaries"
        )
    device = a.device
    # on the interpreter, a few programs that each still loop over several tiles
    num_sms = torch.cuda.get_device_properties(device).multi_processor_count if a.is_cuda else 4
    # device-side descriptors are written to a scratch buffer that Triton asks the host for
    # (this replaces any allocator set before, in this thread)
    triton.set_allocator(
        lambda size, alignment, stream: torch.empty(size, dtype=torch.int8, device=device)
    )
    grid = lambda META: (
        min(num_sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])),
    )
    matmul_persistent_kernel[grid](
        a,
        b,
        out,
        bias,
        M,
        N,
        K,
        a.stride(0),
        b.stride(1) if b_kmajor else b.stride(0),
        out.stride(0),
        B_KMAJOR=b_kmajor,
        NUM_SMS=num_sms,
    )


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
    """The persistent kernel for b = w.t() on a Hopper GPU, the drill's kernel otherwise."""
    if out is None:
        out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float16, device=a.device)
    # b = w.t() holds matmul_kernel to 0.72-0.85x cuBLAS on an H200, where the persistent
    # kernel reaches 0.92-1.08x (content/t4_notes.md §4)
    if descriptor_layout(a, b, out) is True and is_hopper(a.device):
        launch_persistent(a, b, out, bias)
        return out
    return launch_tiled(a, b, out, bias)
