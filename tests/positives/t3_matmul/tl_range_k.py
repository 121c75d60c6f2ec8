"""Correct, written differently: the K loop is written `for k in tl.range(0, K, BLOCK_K,
num_stages=3)`, Triton's range with a software-pipelining hint (tutorial 03 and 09 style on
newer Triton). tl.range visits exactly the values range would, 0, BLOCK_K, ..., up to the last
start below K, so the loop rounds K up; the K tail is masked with zero padding, M and N edges
are masked in the loads and the store, the accumulator is fp32 and is converted to fp16 once."""

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 64


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    offs_m = tl.program_id(axis=0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(axis=1).to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    m_ok = offs_m < M
    n_ok = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=3):
        offs_k = k + tl.arange(0, BLOCK_K)
        k_ok = offs_k < K
        a = tl.load(
            a_ptr + offs_m[:, None] * K + offs_k[None, :],
            mask=m_ok[:, None] & k_ok[None, :],
            other=0.0,
        )
        b = tl.load(
            b_ptr + offs_k[:, None] * N + offs_n[None, :],
            mask=k_ok[:, None] & n_ok[None, :],
            other=0.0,
        )
        acc += tl.dot(a, b)
    tl.store(
        c_ptr + offs_m[:, None] * N + offs_n[None, :],
        acc.to(tl.float16),
        mask=m_ok[:, None] & n_ok[None, :],
    )


def _must(cond, exc, msg):
    if not cond:
        raise exc(msg)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    for name, t in (("a", a), ("b", b)):
        _must(
            isinstance(t, torch.Tensor),
            TypeError,
            f"{name} must be a torch.Tensor, got {type(t).__name__}",
        )
        _must(t.dim() == 2, ValueError, f"{name} must be 2-D, got shape {tuple(t.shape)}")
        _must(t.dtype == torch.float16, TypeError, f"{name} must be float16, got {t.dtype}")
        _must(t.is_contiguous(), ValueError, f"{name} must be contiguous, got strides {t.stride()}")
    _must(
        a.shape[1] == b.shape[0],
        ValueError,
        f"shapes {tuple(a.shape)} and {tuple(b.shape)} do not chain",
    )
    _must(a.device == b.device, ValueError, f"a is on {a.device}, b on {b.device}")
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    else:
        _must(
            isinstance(out, torch.Tensor),
            TypeError,
            f"out must be a torch.Tensor, got {type(out).__name__}",
        )
        _must(
            out.shape == (M, N)
            and out.dtype == torch.float16
            and out.is_contiguous()
            and out.device == a.device,
            ValueError,
            f"out must be a contiguous float16 {(M, N)} tensor on {a.device}, got {tuple(out.shape)} "
            f"{out.dtype} strides {out.stride()} on {out.device}",
        )
    if M and N:
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
        matmul_kernel[grid](a, b, out, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return out
