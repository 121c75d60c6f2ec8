"""Split-K into an fp32 workspace that is kept between calls, keyed on the shape, and zeroed
only when it is made: right on the first call of a shape, twice the product on the second (the
split sums land on the first call's). The workspace must be zeroed in every call."""

import torch
import triton
import triton.language as tl

LOSES = ["multiplies"]
SAYS = "a tensor kept between calls"

BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32
SPLIT_K = 2
_WORKSPACES: dict[tuple[int, int], torch.Tensor] = {}


@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    ws_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
):
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)
    pid_k = tl.program_id(axis=2)
    rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    # this program's share of K: every SPLIT_K-th block, starting at its own
    for k in range(pid_k, tl.cdiv(K, BLOCK_K), SPLIT_K):
        ks = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + rows[:, None] * K + ks[None, :]
        b_ptrs = b_ptr + ks[:, None] * N + cols[None, :]
        a = tl.load(a_ptrs, mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptrs, mask=(ks[:, None] < K) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    ws_ptrs = ws_ptr + rows[:, None] * N + cols[None, :]
    tl.atomic_add(ws_ptrs, acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def to_fp16_kernel(ws_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    tl.store(c_ptr + offs, tl.load(ws_ptr + offs, mask=mask).to(tl.float16), mask=mask)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    # the mistake: zeroed when made, not before each call's atomics add into it
    if (M, N) not in _WORKSPACES:
        _WORKSPACES[(M, N)] = torch.zeros((M, N), dtype=torch.float32, device=a.device)
    ws = _WORKSPACES[(M, N)]
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), SPLIT_K)
    matmul_kernel[grid](
        a, b, ws, M, N, K, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, SPLIT_K=SPLIT_K
    )
    to_fp16_kernel[(triton.cdiv(M * N, 1024),)](ws, out, M * N, BLOCK_SIZE=1024)
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
