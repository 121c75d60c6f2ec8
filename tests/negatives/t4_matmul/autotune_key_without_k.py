"""EVEN_K is a field of the configs, and prune_configs_by keeps the EVEN_K=True config (no K mask)
only where K is a multiple of BLOCK_SIZE_K, but the autotune key is ["M", "N"]: K is missing, so
the config chosen at the first K is taken from autotune's cache at any other K with the same M
and N. Called with K = 256, then K = 45, the second call runs without the K mask."""

import torch
import triton
import triton.language as tl

LOSES = ["k_tail"]
SAYS = "key=['M', 'N', 'K']"


def _cfg(even):
    return triton.Config(
        {
            "BLOCK_SIZE_M": 32,
            "BLOCK_SIZE_N": 16,
            "BLOCK_SIZE_K": 32,
            "GROUP_SIZE_M": 2,
            "EVEN_K": even,
        },
        num_stages=3,
        num_warps=4,
    )


CONFIGS = [_cfg(True), _cfg(False)]


def prune(configs, named_args, **kwargs):
    K = named_args["K"]
    return [c for c in configs if c.kwargs["EVEN_K"] == (K % c.kwargs["BLOCK_SIZE_K"] == 0)]


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=CONFIGS, key=["M", "N"], prune_configs_by={"early_config_prune": prune})
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
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_m, pid_n = grouped_tile(
        pid, tl.cdiv(M, BLOCK_SIZE_M), tl.cdiv(N, BLOCK_SIZE_N), GROUP_SIZE_M
    )
    offs_m = pid_m.to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n.to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        if EVEN_K:
            a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
            b = tl.load(b_ptrs, mask=offs_n[None, :] < N, other=0.0)
        else:
            rem = K - k * BLOCK_SIZE_K
            a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < rem), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < rem) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    tl.store(
        c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn,
        acc.to(tl.float16),
        mask=(offs_m[:, None] < M) & (offs_n[None, :] < N),
    )


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
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


def check_inputs(a, b, out):
    for name, t in {"a": a, "b": b}.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.float16:
            raise TypeError(f"{name} must be fp16, got {t.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError("inner sizes differ")
    if a.device != b.device:
        raise ValueError("devices differ")
    if out is not None:
        shape = (a.shape[0], b.shape[1])
        if out.shape != shape or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError("bad out")


def check_bias(b, bias):
    if not isinstance(bias, torch.Tensor):
        raise TypeError("bias must be a tensor")
    if bias.shape != (b.shape[1],) or bias.dtype != torch.float16 or bias.device != b.device:
        raise ValueError("bias must be N fp16 values")
