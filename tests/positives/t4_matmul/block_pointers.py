"""Correct, written differently: T4 with block pointers. Each operand is a tl.make_block_ptr
built from the tensor's own shape and strides (passed from the host as a.stride(), b.stride(),
out.stride()), so a transposed operand (w.t()), a slice with gaps between its rows, or a strided
output is read and written where it lies, with no copy. The K loop moves a's block right and b's
block down with tl.advance; loads check both boundaries and pad with zeros (padding_option=
"zero"), so M and N edges and the K tail add nothing, and the store's boundary_check keeps every
write inside c. `order` is only a layout hint (the fastest-varying dimension); with
order=(1, 0) on a transposed operand the addresses are still computed from its strides, so the
values are right. The 1-D grid is visited in grouped order through the `grouped_tile` helper,
the grid is a lambda of the config autotune chose, and the interpreter gets one small config.
matmul_bias_gelu fuses bias + exact GELU into the fp32 epilogue, through a HAS_BIAS constexpr."""

import os

import torch
import triton
import triton.language as tl

# triton 3.9 removed block pointers (3.7 and 3.8 warn): a positive before it, and from it on
# a file the grader must tell so (drills/versions.py)
TRITON_BEFORE = "3.9"

_INTERP = os.getenv("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")

if _INTERP:
    CONFIGS = [triton.Config({"BM": 32, "BN": 32, "BK": 16, "GROUP_SIZE_M": 4})]
else:
    CONFIGS = [
        triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP_SIZE_M": 8}, num_stages=s, num_warps=w)
        for bm, bn, bk, s, w in [
            (128, 128, 64, 3, 8),
            (128, 256, 64, 3, 8),
            (64, 128, 32, 4, 4),
            (128, 64, 32, 4, 4),
            (64, 64, 32, 5, 2),
        ]
    ]


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    per_group = GROUP_SIZE_M * num_pid_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    rows_here = tl.minimum(num_pid_m - first_m, GROUP_SIZE_M)
    within = pid % per_group
    return first_m + within % rows_here, within // rows_here


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    M,
    N,
    K,
    s_am,
    s_ak,
    s_bk,
    s_bn,
    s_cm,
    s_cn,
    HAS_BIAS: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_m, pid_n = grouped_tile(pid, tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP_SIZE_M)
    row0 = pid_m * BM
    col0 = pid_n * BN
    a_bp = tl.make_block_ptr(
        a_ptr,
        shape=(M, K),
        strides=(s_am, s_ak),
        offsets=(row0, 0),
        block_shape=(BM, BK),
        order=(1, 0),
    )
    b_bp = tl.make_block_ptr(
        b_ptr,
        shape=(K, N),
        strides=(s_bk, s_bn),
        offsets=(0, col0),
        block_shape=(BK, BN),
        order=(1, 0),
    )
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(tl.cdiv(K, BK)):
        a_tile = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
        b_tile = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a_tile, b_tile, acc)
        a_bp = tl.advance(a_bp, (0, BK))
        b_bp = tl.advance(b_bp, (BK, 0))
    if HAS_BIAS:
        cols = col0 + tl.arange(0, BN)
        bias = tl.load(bias_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        z = acc + bias[None, :]
        acc = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    c_bp = tl.make_block_ptr(
        c_ptr,
        shape=(M, N),
        strides=(s_cm, s_cn),
        offsets=(row0, col0),
        block_shape=(BM, BN),
        order=(1, 0),
    )
    tl.store(c_bp, acc.to(tl.float16), boundary_check=(0, 1))


def _validate(a, b, out):
    for nm, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{nm} must be a torch.Tensor (got {type(t).__name__})")
        if t.dim() != 2:
            raise ValueError(f"{nm} must be 2-D (got shape {tuple(t.shape)})")
        if t.dtype != torch.float16:
            raise TypeError(f"{nm} must be float16 (got {t.dtype})")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"a {tuple(a.shape)} @ b {tuple(b.shape)}: inner sizes differ")
    if a.device != b.device:
        raise ValueError(f"a on {a.device} but b on {b.device}")
    if out is not None:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"out must be a torch.Tensor (got {type(out).__name__})")
        want = (a.shape[0], b.shape[1])
        if tuple(out.shape) != want or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError(
                f"out must be float16 {want} on {a.device} (got {tuple(out.shape)} {out.dtype} on {out.device})"
            )


def _run(a, b, out, bias):
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    if M == 0 or N == 0:
        return out
    grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)
    matmul_kernel[grid](
        a,
        b,
        out,
        bias,
        M,
        N,
        K,
        *a.stride(),
        *b.stride(),
        *out.stride(),
        HAS_BIAS=bias is not None,
    )
    return out


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    _validate(a, b, out)
    return _run(a, b, out, None)


def matmul_bias_gelu(
    a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, out: torch.Tensor | None = None
) -> torch.Tensor:
    _validate(a, b, out)
    if not isinstance(bias, torch.Tensor):
        raise TypeError(f"bias must be a torch.Tensor (got {type(bias).__name__})")
    if tuple(bias.shape) != (b.shape[1],) or bias.dtype != torch.float16 or bias.device != a.device:
        raise ValueError(
            f"bias must be {b.shape[1]} float16 values on {a.device} (got {tuple(bias.shape)} {bias.dtype})"
        )
    return _run(a, b, out, bias.contiguous())
