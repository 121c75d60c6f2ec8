"""The old triton.ops.matmul's split-K, its output zeroed once on the host instead of before
each run: right on every call but the first of a shape, where autotune runs each config on the
call's own tensors to time it, and each run adds into c again (on a GPU, a sum several times
over). The positive ops_matmul_split_k.py zeroes c in each split config's pre_hook."""

import functools
import os
import types

import torch
import triton
import triton.language as tl

SETTINGS = types.SimpleNamespace(group_m=8)

LOSES = ["autotune_grid"]
SAYS = "autotune runs each config on the call's own tensors"


def interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


@functools.lru_cache
def configs() -> list:
    if interpreting():
        # the first config runs: a split-K one
        shapes = [(32, 32, 16, 2), (32, 32, 16, 1)]
    else:
        # a split-K config first: where K lets it run, it is the one the judge's timing keeps,
        # as a GPU's timing may
        shapes = [
            (64, 64, 32, 2),
            (128, 256, 32, 1),
            (128, 128, 32, 1),
            (64, 128, 32, 1),
            (32, 64, 64, 4),
        ]
    return [
        triton.Config(
            {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SPLIT_K": split},
            num_stages=3,
            num_warps=4 if bm * bn <= 64 * 128 else 8,
        )
        for bm, bn, bk, split in shapes
    ]


def early_config_prune(configs, named_args, **kwargs):
    """A split of K narrower than BLOCK_K would be all mask: keep the configs that fit."""
    k = named_args["K"]
    kept = [c for c in configs if k >= c.kwargs["BLOCK_K"] * c.kwargs["SPLIT_K"]]
    return kept or configs[-1:]


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """The kernel's grouped order, on its own: (pid_m, pid_n) of program pid."""
    width = GROUP_SIZE_M * num_pid_n
    group_id = pid // width
    group_size = min(num_pid_m - group_id * GROUP_SIZE_M, GROUP_SIZE_M)
    pid_m = group_id * GROUP_SIZE_M + (pid % group_size)
    pid_n = (pid % width) // group_size
    return pid_m, pid_n


@triton.autotune(
    configs=configs(),
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": early_config_prune},
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % (args["BLOCK_K"] * args["SPLIT_K"]) == 0})
@triton.jit
def matmul_kernel(
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
    ACC_DTYPE: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    SPLIT_K: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_z = tl.program_id(1)
    grid_m = tl.cdiv(M, BLOCK_M)
    grid_n = tl.cdiv(N, BLOCK_N)
    width = GROUP_M * grid_n
    group_id = pid // width
    group_size = min(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (pid % group_size)
    pid_n = (pid % width) // group_size

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ram = tl.max_contiguous(tl.multiple_of(rm % M, BLOCK_M), BLOCK_M)
    rbn = tl.max_contiguous(tl.multiple_of(rn % N, BLOCK_N), BLOCK_N)
    rk = pid_z * BLOCK_K + tl.arange(0, BLOCK_K)
    A = A + (ram[:, None] * stride_am + rk[None, :] * stride_ak)
    B = B + (rk[:, None] * stride_bk + rbn[None, :] * stride_bn)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_DTYPE)
    for k in range(tl.cdiv(K, BLOCK_K * SPLIT_K)):
        if EVEN_K:
            a = tl.load(A)
            b = tl.load(B)
        else:
            k_left = K - k * (BLOCK_K * SPLIT_K)
            a = tl.load(A, mask=rk[None, :] < k_left, other=0.0)
            b = tl.load(B, mask=rk[:, None] < k_left, other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=ACC_DTYPE)
        A += BLOCK_K * SPLIT_K * stride_ak
        B += BLOCK_K * SPLIT_K * stride_bk

    C = C + (rm[:, None] * stride_cm + rn[None, :] * stride_cn)
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    if SPLIT_K == 1:
        tl.store(C, acc.to(C.dtype.element_ty), mask=mask)
    else:
        tl.atomic_add(C, acc.to(C.dtype.element_ty), mask=mask)


class _matmul(torch.autograd.Function):
    @staticmethod
    def _call(a, b, out):
        if a.shape[1] != b.shape[0]:
            raise ValueError(f"incompatible dimensions: {tuple(a.shape)} @ {tuple(b.shape)}")
        M, K = a.shape
        _, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=a.dtype) if out is None else out
        # the mistake: zeroed once here, not before each run of a config
        c.zero_()

        def grid(META):
            return (
                triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),
                META["SPLIT_K"],
            )

        matmul_kernel[grid](
            a,
            b,
            c,
            M,
            N,
            K,
            a.stride(0),
            a.stride(1),
            b.stride(0),
            b.stride(1),
            c.stride(0),
            c.stride(1),
            ACC_DTYPE=tl.float32,
            GROUP_M=SETTINGS.group_m,
        )
        return c

    @staticmethod
    def forward(ctx, a, b, out=None):
        return _matmul._call(a, b, out)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    return _matmul.apply(a, b, out)
