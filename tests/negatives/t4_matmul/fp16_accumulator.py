"""Accumulates in fp16 through tl.dot(a, b, acc)."""

import os

import torch
import triton
import triton.language as tl

LOSES = ["accumulates in fp32 (long K)"]
SAYS = "float32"
# before 3.8 the interpreter refuses the fp16 acc, as a GPU does (an AssertionError without
# words); from 3.8 it runs it, and the values show the rounding
TRITON_CHANGES_AT = "3.8"


# Autotuning times every config on a GPU: Triton tutorial 03's list, plus 128 x 256 and
# 256 x 128 with 4 stages and 256 x 128 with 3, which won at 4096^3, 8192^3 and b = w.t() on an
# H200 (content/experiments/t4_square.py). The interpreter has nothing to time, so it gets one
# small config, whose blocks (32 x 16) no hard-coded grid is likely to match.
GPU_CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
        num_stages=stages,
        num_warps=warps,
    )
    for bm, bn, bk, stages, warps in [
        (128, 256, 64, 3, 8),
        (128, 256, 64, 4, 8),
        (256, 128, 64, 3, 8),
        (256, 128, 64, 4, 8),
        (64, 256, 32, 4, 4),
        (128, 128, 32, 4, 4),
        (128, 64, 32, 4, 4),
        (64, 128, 32, 4, 4),
        (128, 32, 32, 4, 4),
        (64, 32, 32, 5, 2),
        (32, 64, 32, 5, 2),
    ]
]
INTERPRETER_CONFIG = triton.Config(
    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}
)
# decided at import, like the kernels: @triton.jit reads TRITON_INTERPRET when it decorates
INTERPRETING = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS


def check_inputs(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None) -> None:
    """Reject what matmul_kernel cannot handle, with a message that says what was wrong."""
    for name, t in {"a": a, "b": b}.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.float16:
            raise TypeError(f"{name} must be fp16, got {t.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's columns must equal b's rows"
        )
    if a.device != b.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}")
    if out is not None:
        shape = (a.shape[0], b.shape[1])
        if out.shape != shape or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError(
                f"out must be a {shape} fp16 tensor on {a.device}, got {tuple(out.shape)} "
                f"{out.dtype} on {out.device}"
            )


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """The (pid_m, pid_n) tile of program `pid`: groups of GROUP_SIZE_M rows of tiles, each
    walked column by column, so consecutive programs share their columns of B."""
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    # the last group is shorter when num_pid_m is not a multiple of GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # [BLOCK_SIZE_M]
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # [BLOCK_SIZE_N]
    offs_k = tl.arange(0, BLOCK_SIZE_K)  # [BLOCK_SIZE_K]
    # strides, not shapes: a transposed or sliced operand is read where it lies
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        # the last step may hold fewer than BLOCK_SIZE_K columns of A (rows of B)
        k_remaining = K - k * BLOCK_SIZE_K
        a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)
        b_mask = (offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N)
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    # epilogue: convert once, store through c's own strides
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    # a function of the config autotune picks: its block sizes decide the number of tiles
    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),
    )
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
    )
    return out
