"""Correct, written differently: split-K into an fp32 workspace. Each tile's K is shared by
SPLIT_K programs (the grid's second axis), which add their partial sums into a workspace of
zeros with tl.atomic_add; a second kernel converts it to fp16 into c. The workspace is made
with torch.zeros in every call, so two calls in a row get the same address from torch's
allocator: the grader must take it for the new memory it is, zeros and all. One split-K
config only, so that autotune's timing runs (which would add into the same workspace once
per config, without reset_to_zero) never meet it."""

import os

import torch
import triton
import triton.language as tl

# one config on a GPU too: with several, autotune's timing would add into the workspace
GPU_CONFIGS = [
    triton.Config(
        {
            "BLOCK_SIZE_M": 64,
            "BLOCK_SIZE_N": 64,
            "BLOCK_SIZE_K": 32,
            "GROUP_SIZE_M": 8,
            "SPLIT_K": 2,
        },
        num_stages=3,
        num_warps=4,
    )
]
INTERPRETER_CONFIG = triton.Config(
    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2, "SPLIT_K": 2}
)
# decided at import, like the kernels: @triton.jit reads TRITON_INTERPRET when it decorates
INTERPRETING = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS


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
    ws_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    pid = tl.program_id(axis=0)
    pid_k = tl.program_id(axis=1)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)).to(tl.int64)
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)).to(tl.int64)
    offs_k = pid_k * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    # split pid_k takes every SPLIT_K-th block of K, starting at its own
    for k in range(pid_k * BLOCK_SIZE_K, K, BLOCK_SIZE_K * SPLIT_K):
        k_remaining = K - k
        a = tl.load(
            a_ptrs,
            mask=(offs_am[:, None] < M) & (tl.arange(0, BLOCK_SIZE_K)[None, :] < k_remaining),
            other=0.0,
        )
        b = tl.load(
            b_ptrs,
            mask=(tl.arange(0, BLOCK_SIZE_K)[:, None] < k_remaining) & (offs_bn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * SPLIT_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * SPLIT_K * stride_bk
    ws_ptrs = ws_ptr + offs_am[:, None] * N + offs_bn[None, :]
    tl.atomic_add(ws_ptrs, acc, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


@triton.jit
def to_fp16(ws_ptr, c_ptr, M, N, stride_cm, stride_cn, BLOCK: tl.constexpr):
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    for start in range(0, N, BLOCK):
        c = start + cols
        v = tl.load(ws_ptr + row * N + c, mask=c < N)
        tl.store(c_ptr + row * stride_cm + c * stride_cn, v.to(tl.float16), mask=c < N)


def matmul(a, b, out=None):
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    ws = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),
        META["SPLIT_K"],
    )
    matmul_kernel[grid](a, b, ws, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1))
    to_fp16[(M,)](ws, out, M, N, out.stride(0), out.stride(1), BLOCK=256)
    return out
