"""Correct, written differently: FlagGems style, kernels that take their program ids from `tle`,
a namespace of @triton.jit helpers (FlagGems imports flag_gems.utils.triton_lang_extension as
tle, a module whose program_id(axis) returns tl.program_id(axis).to(tl.int64)). A single file
cannot import a module of its own, so it makes one: `tle = types.ModuleType("tle")`, with the
helpers set on it as attributes. Triton's code generator lets a kernel reach a global whose type
is exactly ModuleType and call the @triton.jit functions it holds (3.6 to 3.9, compiled for
sm_90 and interpreted alike); a SimpleNamespace, a namedtuple or a class would be refused. The
kernel is FlagGems' mm_kernel without split-K: a 1-D grid of tiles in groups of GROUP_M rows
of tiles, int64 program ids (so every index derived from them is int64), loads masked on M, N
and K with zero padding, an fp32 accumulator, and a store masked on M and N. Scored 0/100 on
the grader of commit 47ee4bc, whose kernel module left `tle` out as a module-level value that is
not a constant, and with it the kernel."""

import logging
import types

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)


@triton.jit
def program_id(axis: int) -> tl.tensor:
    return tl.program_id(axis).to(tl.int64)


@triton.jit
def num_programs(axis: int) -> tl.tensor:
    return tl.num_programs(axis).to(tl.int64)


tle = types.ModuleType("tle")
tle.program_id = program_id
tle.num_programs = num_programs


@triton.jit
def mm_kernel(
    A,
    B,
    C,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    dot_out_dtype: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
):
    pid = tle.program_id(0)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    # re-order program ids for better L2 reuse: GROUP_M rows of tiles share their columns of B
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=dot_out_dtype)
    for k in range(0, tl.cdiv(K, BLOCK_K)):  # noqa: PIE808 - as FlagGems writes it
        ks = k * BLOCK_K + rk
        a = tl.load(
            A + rm[:, None] * stride_am + ks[None, :] * stride_ak,
            mask=(rm[:, None] < M) & (ks[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            B + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
            mask=(ks[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc += tl.dot(a, b, out_dtype=dot_out_dtype)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    c = acc.to(C.dtype.element_ty)
    tl.store(C + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c, mask=mask)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    logger.debug("GEMS MM")
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a tensor, got {type(t).__name__}")
        if t.dim() != 2 or t.dtype != torch.float16:
            raise ValueError(f"{name} must be a 2-D float16 tensor, got {tuple(t.shape)} {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous, got strides {t.stride()}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"incompatible dimensions: {tuple(a.shape)} @ {tuple(b.shape)}")
    if a.device != b.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}")
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    elif (
        not isinstance(out, torch.Tensor)
        or out.shape != (M, N)
        or out.dtype != torch.float16
        or not out.is_contiguous()
        or out.device != a.device
    ):
        raise ValueError(f"out must be a contiguous float16 ({M}, {N}) tensor on {a.device}")
    if M == 0 or N == 0:
        return out
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
    mm_kernel[grid](
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
        dot_out_dtype=tl.float32,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_K=BLOCK_K,
        GROUP_M=8,
        num_warps=4,
    )
    return out
