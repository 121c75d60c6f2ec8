"""Correct, written differently: tensor descriptors made inside the kernel
(tl.make_tensor_descriptor, tutorial 09's device-side TMA), whose descriptors live in scratch
memory that triton asks the host for through triton.set_allocator, called once at import.
The grader runs launches in a process other than the one that imports this file, so it must
give that process an allocator of its own; this file got 100/100 on an H100 (torch 2.11, triton
3.6) and on the CPU. Rows must start 16 bytes apart for a descriptor, so shapes whose K or N is
not a multiple of 8 take a pointer kernel with masks."""

import torch
import triton
import triton.language as tl


def alloc_fn(size: int, alignment: int, stream):
    # device-side tensor descriptors live in a scratch buffer triton asks the host for
    return torch.empty(
        size, device="cuda" if torch.cuda.is_available() else "cpu", dtype=torch.int8
    )


triton.set_allocator(alloc_fn)


@triton.jit
def matmul_tma_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    row = tl.program_id(0) * BM
    col = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([row, k]), b_desc.load([k, col]), acc)
    c_desc.store([row, col], acc.to(tl.float16))


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    rows = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    cols = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
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


def matmul(a, b, out=None):
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    BM, BN, BK = 64, 64, 32
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    # a descriptor's rows must start 16 bytes apart: K and N multiples of 8 fp16 values
    if K % 8 == 0 and N % 8 == 0 and M * max(K, N) < 2**31:
        matmul_tma_kernel[grid](a, b, out, M, N, K, BM=BM, BN=BN, BK=BK)
    else:
        matmul_kernel[grid](a, b, out, M, N, K, BM=BM, BN=BN, BK=BK)
    return out


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
