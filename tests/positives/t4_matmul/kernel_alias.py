"""Correct, written differently: the kernel is defined under another name, `kernel_fma`, and the
drill's name is an alias to it: `matmul_kernel = kernel_fma` (libraries keep old names this way,
e.g. `_kernel = kernel_fma` after a rename). The host launches `matmul_kernel`, the same
Autotuner object. The body is tutorial 03's grouped matmul: a `grouped_tile` helper for the
program order, four strides for the operands and the output, the K tail masked with zeros, an
fp32 accumulator fed back into tl.dot (acc = tl.dot(a, b, acc), the fused multiply-add the name
refers to). One small config on the interpreter, chosen from TRITON_INTERPRET at import."""

import os

import torch
import triton
import triton.language as tl

if os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on"):
    CONFIGS = [
        triton.Config(
            {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}
        )
    ]
else:
    CONFIGS = [
        triton.Config(
            {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8},
            num_stages=4,
            num_warps=4,
        ),
    ]


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    in_group = GROUP_SIZE_M * num_pid_n
    first_m = pid // in_group * GROUP_SIZE_M
    size_m = tl.minimum(num_pid_m - first_m, GROUP_SIZE_M)
    pid_m = first_m + (pid % in_group) % size_m
    pid_n = (pid % in_group) // size_m
    return pid_m, pid_n


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def kernel_fma(
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
    om = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    on = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    ok = tl.arange(0, BLOCK_SIZE_K)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_SIZE_K):
        kk = k0 + ok
        a = tl.load(
            a_ptr + om[:, None] * stride_am + kk[None, :] * stride_ak,
            mask=(om[:, None] < M) & (kk[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + kk[:, None] * stride_bk + on[None, :] * stride_bn,
            mask=(kk[:, None] < K) & (on[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    tl.store(
        c_ptr + om[:, None] * stride_cm + on[None, :] * stride_cn,
        acc.to(tl.float16),
        mask=(om[:, None] < M) & (on[None, :] < N),
    )


matmul_kernel = kernel_fma  # the drill's name for it


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

    def grid(META):
        return (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)

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
