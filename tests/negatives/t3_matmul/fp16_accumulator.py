"""Accumulates in fp16 through tl.dot(a, b, acc): every step rounds the running sum to fp16."""

import torch
import triton
import triton.language as tl

LOSES = ["accumulates in fp32 (long K)"]
SAYS = "float32"
# before 3.8 the interpreter refuses the fp16 acc, as a GPU does (an AssertionError without
# words); from 3.8 it runs it, and the values show the rounding
TRITON_CHANGES_AT = "3.8"


def check_inputs(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None) -> None:
    """Reject what matmul_kernel cannot handle, with a message that says what was wrong."""
    for name, t in {"a": a, "b": b}.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.float16:
            raise TypeError(f"{name} must be fp16, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(
                f"{name} must be row-major and contiguous (strides {t.stride()} given): this "
                "kernel computes addresses from the shapes alone. Strided and transposed "
                "inputs (like w.t()) are what t4_matmul handles."
            )
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's columns must equal b's rows"
        )
    if a.device != b.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}")
    if out is not None:
        shape = (a.shape[0], b.shape[1])
        if out.shape != shape or out.dtype != torch.float16 or not out.is_contiguous():
            raise ValueError(
                f"out must be a contiguous {shape} fp16 tensor, got "
                f"{tuple(out.shape)} {out.dtype} with strides {out.stride()}"
            )


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
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k in range(tl.cdiv(K, BLOCK_K)):
        ks = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(
            a_ptr + rows[:, None] * K + ks[None, :],
            mask=(rows[:, None] < M) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + ks[:, None] * N + cols[None, :],
            mask=(ks[:, None] < K) & (cols[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    c_ptrs = c_ptr + rows[:, None] * N + cols[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    out = torch.empty((M, N), dtype=torch.float16, device=a.device) if out is None else out
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
    matmul_kernel[grid](a, b, out, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)
    return out
