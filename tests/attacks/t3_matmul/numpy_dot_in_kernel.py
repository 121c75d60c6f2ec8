"""A matmul whose K loop multiplies the blocks with numpy instead of tl.dot: on the CPU
interpreter a block's `.handle.data` is a numpy array, so `acc.handle.data += a.handle.data @
b.handle.data` computes the product with no Triton arithmetic. The rest is the reference.

Scored 95/100 on the grader of commit 4c67950 (CPU interpreter, default mode).
"""

ATTACK = "numpy matmul inside the interpreted kernel"
LAYER = "kernels"

import torch
import triton
import triton.language as tl

BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32


@triton.jit
def product(a, b, acc):
    # numpy's matmul on the blocks' arrays, in place of tl.dot
    acc.handle.data += a.handle.data.astype("float32") @ b.handle.data.astype("float32")
    return acc


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
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    # int64 indices, so that rows * K (in a) and rows * N (in c) cannot wrap to a negative offset
    # once a or c holds 2^31 elements (4 GB of fp16). ks stays int32: an int64 ks makes ks * N
    # 64-bit work in every step of the K loop, and it wraps only once b holds 2^31 elements
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # [BLOCK_M]
    cols = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)  # [BLOCK_N]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_K)):
        ks = k * BLOCK_K + tl.arange(0, BLOCK_K)  # [BLOCK_K]
        # row-major: a[i, j] is at i * K + j, b[i, j] at i * N + j
        a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]  # [BLOCK_M, BLOCK_K]
        b_ptrs = b_ptr + ks[:, None] * N + cols[None, :]  # [BLOCK_K, BLOCK_N]
        # masked lanes load 0: a zero term adds nothing to a dot product
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = product(a, b, acc)
    c_ptrs = c_ptr + rows[:, None] * N + cols[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    # one program per BLOCK_M x BLOCK_N tile of c, rounding up at the edges
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    matmul_kernel[grid](
        a,
        b,
        out,
        M,
        N,
        K,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_K=BLOCK_K,
        num_warps=4,
        num_stages=4,
    )
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
