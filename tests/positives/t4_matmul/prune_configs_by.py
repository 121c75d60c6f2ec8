"""Correct, written differently: the autotuner prunes its configs before timing them,
`prune_configs_by={"early_config_prune": ...}` (as FlagGems' and bitsandbytes' matmuls do): a
config whose BLOCK_SIZE_K is larger than K (or than 16, when K is smaller) is dropped, since its
only K step would be partly masked, and of the rest only those with the largest BLOCK_SIZE_K are
kept. Every list has a config with BLOCK_SIZE_K = 16, so one survives for every K. On the
interpreter the list is two small configs (BLOCK_SIZE_K 64, then 16; TRITON_INTERPRET, read at
import) and the pruning leaves exactly one (triton's interpreter cannot time several): for K <
64 the config that runs is the second one, not the first. The body is tutorial 03's grouped
matmul with a `grouped_tile` helper, four strides, the K tail masked with zeros and an fp32
accumulator."""

import os

import torch
import triton
import triton.language as tl


def _cfg(bm, bn, bk, stages=3, warps=4):
    return triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 4},
        num_stages=stages,
        num_warps=warps,
    )


if os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on"):
    CONFIGS = [_cfg(32, 32, 64), _cfg(32, 16, 16)]
else:
    CONFIGS = [
        _cfg(128, 128, 64, 3, 8),
        _cfg(128, 64, 64, 4),
        _cfg(128, 64, 32, 4),
        _cfg(64, 64, 16, 4),
    ]


def early_config_prune(configs, named_args, **kwargs):
    """Drop configs whose K tile exceeds K, then keep those with the largest K tile left."""
    fits = [c for c in configs if c.kwargs["BLOCK_SIZE_K"] <= max(16, named_args["K"])]
    widest = max(c.kwargs["BLOCK_SIZE_K"] for c in fits)
    return [c for c in fits if c.kwargs["BLOCK_SIZE_K"] == widest]


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(
    configs=CONFIGS,
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": early_config_prune},
)
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
    pid_m, pid_n = grouped_tile(
        tl.program_id(0), tl.cdiv(M, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N), GROUP_SIZE_M
    )
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        rem = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < rem), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < rem) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"cannot multiply {tuple(a.shape)} by {tuple(b.shape)}")
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise TypeError(f"a and b must be fp16, got {a.dtype} and {b.dtype}")
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    elif out.shape != (M, N) or out.dtype != torch.float16:
        raise ValueError(f"out must be fp16 {(M, N)}, got {out.dtype} {tuple(out.shape)}")
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
