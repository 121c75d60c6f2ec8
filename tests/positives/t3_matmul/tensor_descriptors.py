"""Correct, written differently: tensor descriptors, the API Triton now recommends over block
pointers (tutorial 09's TMA kernels). The host describes each matrix once with
triton.tools.tensor_descriptor.TensorDescriptor (base, shape, strides, block shape); the kernel
loads and stores whole tiles at [row, column] coordinates, and the descriptor does the bounds
checks: reads past an edge or past K give zeros, which add nothing to the dot product, and
stores past an edge are dropped. A descriptor needs every row to start 16 bytes after the
previous one, so rows of K or N fp16 values need K and N multiples of 8; other shapes go to a
pointer kernel with masks, as a library kernel would fall back."""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

BM, BN, BK = 64, 64, 32


@triton.jit
def matmul_descriptor_kernel(
    a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    row, col = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([row, k]), b_desc.load([k, col]), acc)
    c_desc.store([row, col], acc.to(tl.float16))


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        ks = k + tl.arange(0, BK)
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
    tl.store(
        c_ptr + rows[:, None] * N + cols[None, :],
        acc.to(tl.float16),
        mask=(rows[:, None] < M) & (cols[None, :] < N),
    )


def _require(a, b, out):
    for label, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"matmul: {label} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"matmul: {label} must be a matrix, got shape {tuple(t.shape)}")
        if t.dtype is not torch.float16:
            raise TypeError(f"matmul: {label} must be torch.float16, got {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(
                f"matmul: {label} must be contiguous row-major, got strides {t.stride()}"
            )
    if a.size(1) != b.size(0):
        raise ValueError(
            f"matmul: inner dimensions differ, a is {tuple(a.shape)}, b is {tuple(b.shape)}"
        )
    if a.device != b.device:
        raise ValueError(f"matmul: a is on {a.device} but b is on {b.device}")
    if out is not None:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"matmul: out must be a torch.Tensor, got {type(out).__name__}")
        want = (a.size(0), b.size(1))
        if (
            tuple(out.shape) != want
            or out.dtype is not torch.float16
            or not out.is_contiguous()
            or out.device != a.device
        ):
            raise ValueError(
                f"matmul: out must be a contiguous fp16 {want} tensor on {a.device}, got "
                f"{tuple(out.shape)} {out.dtype} strides {out.stride()} on {out.device}"
            )


def rows_are_16_byte_aligned(*matrices: torch.Tensor) -> bool:
    return all(
        m.stride(0) * m.element_size() % 16 == 0 and m.data_ptr() % 16 == 0 for m in matrices
    )


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    _require(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.float16)
    if M == 0 or N == 0:
        return c
    if K == 0:
        return c.zero_()
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    if rows_are_16_byte_aligned(a, b, c):
        a_desc = TensorDescriptor.from_tensor(a, [BM, BK])
        b_desc = TensorDescriptor.from_tensor(b, [BK, BN])
        c_desc = TensorDescriptor.from_tensor(c, [BM, BN])
        matmul_descriptor_kernel[grid](a_desc, b_desc, c_desc, K, BM=BM, BN=BN, BK=BK)
    else:
        matmul_kernel[grid](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK)
    return c
