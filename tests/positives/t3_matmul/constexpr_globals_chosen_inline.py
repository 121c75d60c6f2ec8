"""Correct, written differently: tile sizes as module-level tl.constexpr globals that the
kernel reads directly, each chosen by a conditional expression on TRITON_INTERPRET (small
tiles on the CPU, 128 x 128 x 32 on a GPU), which the judge decides as the module would; a
while loop over K; loads masked without `other` and zeroed with tl.where; tl.static_assert on
the tiles; tl.dot(..., allow_tf32=False, out_dtype=tl.float32) added into the accumulator; the
result cast with tl.cast(..., fp_downcast_rounding="rtne"); the host keeps its grid lambda in a
module dict."""

import os

import torch
import triton
import triton.language as tl

INTERPRETING = os.environ.get("TRITON_INTERPRET", "0") == "1"
TILE_M: tl.constexpr = tl.constexpr(32 if INTERPRETING else 128)
TILE_N: tl.constexpr = tl.constexpr(64 if INTERPRETING else 128)
TILE_K: tl.constexpr = tl.constexpr(16 if INTERPRETING else 32)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K):
    tl.static_assert(TILE_K >= 16, "tl.dot needs K tiles of at least 16")
    tl.static_assert((TILE_M & (TILE_M - 1)) == 0)
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    rm = pid_m * TILE_M + tl.arange(0, TILE_M)
    rn = pid_n * TILE_N + tl.arange(0, TILE_N)
    acc = tl.zeros((TILE_M, TILE_N), dtype=tl.float32)
    k0 = 0
    while k0 < K:
        rk = k0 + tl.arange(0, TILE_K)
        am = (rm[:, None] < M) & (rk[None, :] < K)
        bm = (rk[:, None] < K) & (rn[None, :] < N)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=am)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=bm)
        a = tl.where(am, a, 0.0)
        b = tl.where(bm, b, 0.0)
        acc += tl.dot(a, b, allow_tf32=False, out_dtype=tl.float32)
        k0 += TILE_K
    c = tl.cast(acc, tl.float16, fp_downcast_rounding="rtne")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


_GRIDS = {}


def _grid(M, N):
    key = (M, N)
    if key not in _GRIDS:
        _GRIDS[key] = lambda meta: (triton.cdiv(M, TILE_M.value), triton.cdiv(N, TILE_N.value))
    return _GRIDS[key]


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("a is [M, K], b is [K, N]")
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise TypeError("fp16 only")
    if not (a.is_contiguous() and b.is_contiguous()):
        raise ValueError("contiguous inputs only")
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    matmul_kernel[_grid(M, N)](a, b, out, M, N, K, num_warps=4)
    return out
