"""Correct, written differently: Triton's tutorial 03 (tests/positives/t4_matmul/tutorial_03.py)
with constexprs of its own names, BM, BN, BK and GM, and no grouped_tile. The judge cannot read
the tile or the group height from the launch: it takes the tile from the one program 0 stored,
and asks the order of tiles to be grouped for some height of 2 rows or more. Before, a file like
this passed the order checks with nothing checked, and so did one that walked its tiles row by
row (tests/negatives/t4_matmul/unnamed_row_major.py)."""

import os

import torch
import triton
import triton.language as tl


def get_cuda_autotune_config():
    return [
        triton.Config(
            {"BM": 128, "BN": 256, "BK": 64, "GM": 8},
            num_stages=3,
            num_warps=8,
        ),
        triton.Config(
            {"BM": 64, "BN": 256, "BK": 32, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 128, "BK": 32, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 64, "BK": 32, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 64, "BN": 128, "BK": 32, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 32, "BK": 32, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 64, "BN": 32, "BK": 32, "GM": 8},
            num_stages=5,
            num_warps=2,
        ),
        triton.Config(
            {"BM": 32, "BN": 64, "BK": 32, "GM": 8},
            num_stages=5,
            num_warps=2,
        ),
        # good configs for fp8 inputs
        triton.Config(
            {"BM": 128, "BN": 256, "BK": 128, "GM": 8},
            num_stages=3,
            num_warps=8,
        ),
        triton.Config(
            {"BM": 256, "BN": 128, "BK": 128, "GM": 8},
            num_stages=3,
            num_warps=8,
        ),
        triton.Config(
            {"BM": 256, "BN": 64, "BK": 128, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 64, "BN": 256, "BK": 128, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 128, "BK": 128, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 64, "BK": 64, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 64, "BN": 128, "BK": 64, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BM": 128, "BN": 32, "BK": 64, "GM": 8},
            num_stages=4,
            num_warps=4,
        ),
        # too big for any GPU's shared memory: 4 stages of 256x64 + 64x256 fp16 tiles = 256 KiB
        triton.Config(
            {"BM": 256, "BN": 256, "BK": 64, "GM": 8},
            num_stages=4,
            num_warps=8,
        ),
    ]


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


def get_autotune_config():
    if interpreting():
        return [triton.Config({"BM": 16, "BN": 32, "BK": 32, "GM": 2})]
    return get_cuda_autotune_config()


@triton.autotune(configs=get_autotune_config(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    # pointers to matrices
    a_ptr,
    b_ptr,
    c_ptr,
    # matrix dimensions
    M,
    N,
    K,
    # how far to move in memory to get to the next row or column of each matrix
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    # meta-parameters
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
    GM: tl.constexpr,
    ACTIVATION: tl.constexpr = "",
):
    # program id -> tile of C, in grouped order (promotes L2 reuse)
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BM)
    num_pid_n = tl.cdiv(N, BN)
    num_pid_in_group = GM * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GM
    group_size_m = min(num_pid_m - first_pid_m, GM)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    tl.assume(pid_m >= 0)
    tl.assume(pid_n >= 0)
    tl.assume(stride_am > 0)
    tl.assume(stride_ak > 0)
    tl.assume(stride_bn > 0)
    tl.assume(stride_bk > 0)
    tl.assume(stride_cm > 0)
    tl.assume(stride_cn > 0)

    # pointers to the first blocks of A and B; rows/columns past the edge wrap (% M, % N)
    offs_am = (pid_m * BM + tl.arange(0, BM)) % M
    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    # fp32 accumulator; the K tail is masked with zeros
    accumulator = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(tl.float16)

    # write back, masked to C's M x N extent
    offs_cm = pid_m * BM + tl.arange(0, BM)
    offs_cn = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


def matmul(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None, activation: str = ""
) -> torch.Tensor:
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError(
            f"a and b must be torch tensors, got {type(a).__name__} and {type(b).__name__}"
        )
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(
            f"a and b must be matrices, got shapes {tuple(a.shape)} and {tuple(b.shape)}"
        )
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise TypeError(f"a and b must be float16, got {a.dtype} and {b.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"incompatible dimensions: a is {tuple(a.shape)}, b is {tuple(b.shape)}")
    if a.device != b.device:
        raise ValueError(f"a is on {a.device}, b is on {b.device}")
    if activation not in ("", "leaky_relu"):
        raise ValueError(f"activation must be '' or 'leaky_relu', got {activation!r}")
    M, K = a.shape
    K, N = b.shape
    if out is None:
        out = torch.empty((M, N), device=a.device, dtype=torch.float16)
    elif not isinstance(out, torch.Tensor):
        raise TypeError(f"out must be a torch tensor, got {type(out).__name__}")
    elif out.shape != (M, N) or out.dtype != torch.float16 or out.device != a.device:
        raise ValueError(
            f"out must be float16 {(M, N)} on {a.device}, got {tuple(out.shape)} {out.dtype} on {out.device}"
        )
    if M == 0 or N == 0:
        return out
    if min(a.stride() + b.stride() + out.stride()) <= 0:
        raise ValueError("a, b and out need positive strides (the kernel assumes them)")
    grid = lambda META: (triton.cdiv(M, META["BM"]) * triton.cdiv(N, META["BN"]),)
    extra = {"ACTIVATION": activation} if activation else {}
    matmul_kernel[grid](
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
        **extra,
    )
    return out
