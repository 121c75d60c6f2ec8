"""Correct, written differently: block pointers (tl.make_block_ptr / tl.advance), the style of
Triton's older tutorials and of many FlagGems and Intel XPU kernels. Each operand is described
once, as a 2-D tensor with its shape, its strides (K, 1) and (N, 1) for row-major a and b, the
tile's starting offsets and the block shape; the K loop then moves a's block right and b's
block down with tl.advance. Loads use boundary_check on both dimensions with
padding_option="zero", so rows past M, columns past N and the K tail read zeros (which add
nothing to the dot product), and the store uses boundary_check too, so nothing is written
outside c. fp16 tiles are multiplied into an fp32 accumulator and converted to fp16 once."""

import torch
import triton
import triton.language as tl

# triton 3.9 removed block pointers (3.7 and 3.8 warn): a positive before it, and from it on
# a file the grader must tell so (drills/versions.py)
TRITON_BEFORE = "3.9"

BM, BN, BK = 64, 64, 32


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_blk = tl.make_block_ptr(
        base=a_ptr,
        shape=(M, K),
        strides=(K, 1),
        offsets=(pid_m * BM, 0),
        block_shape=(BM, BK),
        order=(1, 0),
    )
    b_blk = tl.make_block_ptr(
        base=b_ptr,
        shape=(K, N),
        strides=(N, 1),
        offsets=(0, pid_n * BN),
        block_shape=(BK, BN),
        order=(1, 0),
    )
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(tl.cdiv(K, BK)):
        a = tl.load(a_blk, boundary_check=(0, 1), padding_option="zero")
        b = tl.load(b_blk, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blk = tl.advance(a_blk, (0, BK))
        b_blk = tl.advance(b_blk, (BK, 0))
    c_blk = tl.make_block_ptr(
        base=c_ptr,
        shape=(M, N),
        strides=(N, 1),
        offsets=(pid_m * BM, pid_n * BN),
        block_shape=(BM, BN),
        order=(1, 0),
    )
    tl.store(c_blk, acc.to(tl.float16), boundary_check=(0, 1))


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


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    _require(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    c = out if out is not None else torch.empty((M, N), device=a.device, dtype=torch.float16)
    if M == 0 or N == 0:
        return c
    if K == 0:
        return c.zero_()
    matmul_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK)
    return c
