"""Correct, written differently: the epilogue's activation is a @triton.jit function passed to the
kernel as a constexpr argument, `ACTIVATION: tl.constexpr`, which the kernel calls as
`ACTIVATION(acc)` (aiter's and some of vLLM's kernels pick their activation this way: triton
specializes the kernel on the function, so each activation is its own compiled kernel). matmul
passes `identity`; matmul_bias_gelu passes `gelu` (exact erf GELU, in fp32) with HAS_BIAS=True,
and the bias is added in fp32 after the K loop. The rest is tutorial 03's grouped, autotuned
matmul: a `grouped_tile` helper, four strides, the K tail masked with zeros, an fp32
accumulator. One small config on the interpreter (chosen from TRITON_INTERPRET)."""

import os

import torch
import triton
import triton.language as tl

if os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on"):
    CONFIGS = [triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "GROUP_SIZE_M": 2})]
else:
    CONFIGS = [
        triton.Config(
            {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 32, "GROUP_SIZE_M": 8},
            num_stages=4,
            num_warps=4,
        )
        for bm, bn in [(128, 128), (64, 128), (64, 64)]
    ]


@triton.jit
def identity(x):
    return x


@triton.jit
def gelu(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    group = GROUP_SIZE_M * num_pid_n
    first = (pid // group) * GROUP_SIZE_M
    rows = tl.minimum(num_pid_m - first, GROUP_SIZE_M)
    return first + (pid % group) % rows, (pid % group) // rows


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    ACTIVATION: tl.constexpr,
    HAS_BIAS: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid_m, pid_n = grouped_tile(
        tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_SIZE_M
    )
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    if HAS_BIAS:
        acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)[None, :]
    acc = ACTIVATION(acc)
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def _launch(a, b, out, bias, activation):
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
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)
    matmul_kernel[grid](
        a,
        b,
        out,
        bias,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
        ACTIVATION=activation,
        HAS_BIAS=bias is not None,
    )
    return out


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    return _launch(a, b, out, None, identity)


def matmul_bias_gelu(
    a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, out: torch.Tensor | None = None
) -> torch.Tensor:
    if bias.shape != (b.shape[1],) or bias.dtype != torch.float16:
        raise ValueError(
            f"bias must be {b.shape[1]} fp16 values, got {bias.dtype} {tuple(bias.shape)}"
        )
    return _launch(a, b, out, bias.contiguous(), gelu)
