"""Correct, written differently: Triton-Puzzles style, with the smallest tiles tl.dot accepts,
16 x 16 x 16. Each program owns a 16 x 16 tile of c (2-D grid, rounded up), and walks K sixteen
columns at a time; offsets are built fresh each step from the row and column ids, loads are
masked on all three dimensions (zeros pad, adding nothing), fp16 products accumulate in fp32,
and the fp16 result is stored with an M x N mask. Small tiles mean many programs: correct, but
slow on a GPU and on the interpreter alike."""

import torch
import triton
import triton.language as tl

T = 16


@triton.jit
def matmul_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr
):
    i = tl.program_id(0) * B0 + tl.arange(0, B0)
    j = tl.program_id(1) * B1 + tl.arange(0, B1)
    i64 = i.to(tl.int64)
    j64 = j.to(tl.int64)
    z = tl.zeros([B0, B1], dtype=tl.float32)
    for k in range(tl.cdiv(K, B2)):
        kk = k * B2 + tl.arange(0, B2)
        x = tl.load(
            a_ptr + i64[:, None] * K + kk[None, :], (i[:, None] < M) & (kk[None, :] < K), 0.0
        )
        y = tl.load(
            b_ptr + kk[:, None] * N + j64[None, :], (kk[:, None] < K) & (j[None, :] < N), 0.0
        )
        z = tl.dot(x, y, z)
    tl.store(
        c_ptr + i64[:, None] * N + j64[None, :],
        z.to(tl.float16),
        (i[:, None] < M) & (j[None, :] < N),
    )


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    problems = []
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} is a {type(t).__name__}, not a torch.Tensor")
        if t.dtype != torch.float16:
            raise TypeError(f"{name} is {t.dtype}; only float16 is supported")
        if t.dim() != 2:
            problems.append(f"{name} has shape {tuple(t.shape)}, not 2-D")
        elif not t.is_contiguous():
            problems.append(f"{name} has strides {t.stride()}, not contiguous row-major")
    if problems:
        raise ValueError("; ".join(problems))
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a {tuple(a.shape)} and b {tuple(b.shape)}: a.shape[1] must equal b.shape[0]"
        )
    if a.device != b.device:
        raise ValueError(f"a and b on different devices: {a.device}, {b.device}")
    M, K = a.shape
    N = b.shape[1]
    if out is not None:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"out is a {type(out).__name__}, not a torch.Tensor")
        if (
            out.shape != (M, N)
            or out.dtype != torch.float16
            or not out.is_contiguous()
            or out.device != a.device
        ):
            raise ValueError(
                f"out must be contiguous float16 of shape {(M, N)} on {a.device}; got "
                f"{tuple(out.shape)} {out.dtype} strides {out.stride()} on {out.device}"
            )
        c = out
    else:
        c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    if M > 0 and N > 0:
        matmul_kernel[(triton.cdiv(M, T), triton.cdiv(N, T))](a, b, c, M, N, K, B0=T, B1=T, B2=T)
    return c
