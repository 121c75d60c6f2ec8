"""Correct, written differently: a persistent matmul in the style of Triton's tutorial 09.
Only as many programs are launched as the GPU has SMs (NUM_SMS, from
torch.cuda.get_device_properties(...).multi_processor_count; on the CPU interpreter, which has
no device to ask, a small stand-in of 3), and each program walks tiles start_pid, start_pid +
NUM_SMS, ... with `tl.range(start_pid, num_tiles, NUM_SMS, flatten=True)` (flatten, Triton
3.4+, lets the compiler pipeline the tile loop and the K loop as one). The grid is
min(NUM_SMS, number of tiles) for the config autotune chose, so every tile is visited exactly
once, in grouped order through `grouped_tile`. Rows and columns past the edge are clamped to 0
for the loads (tl.where, as in the tutorial) so no load leaves a or b, the K tail is masked
with zeros, and the store is masked to M x N through c's strides; all operands are addressed by
their strides, so transposed and sliced views work. The accumulator is re-zeroed for every
tile and kept in fp32."""

import os

import torch
import triton
import triton.language as tl

ON_INTERPRETER = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")


def cuda_configs():
    return [
        triton.Config(
            {"BLOCK_SIZE_M": m, "BLOCK_SIZE_N": n, "BLOCK_SIZE_K": k, "GROUP_SIZE_M": 8},
            num_stages=stages,
            num_warps=warps,
        )
        for m, n, k, stages, warps in [
            (128, 256, 64, 3, 8),
            (128, 128, 64, 3, 8),
            (128, 128, 64, 4, 4),
            (64, 128, 64, 4, 4),
            (128, 64, 64, 4, 4),
        ]
    ]


CONFIGS = (
    [triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2})]
    if ON_INTERPRETER
    else cuda_configs()
)


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.autotune(configs=CONFIGS, key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    NUM_SMS: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_tiles = num_pid_m * num_pid_n
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    lane_k = tl.arange(0, BLOCK_SIZE_K)

    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = grouped_tile(tile_id, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        # clamp out-of-range rows/columns to row/column 0: loads stay inside a and b,
        # and the values they bring only reach elements the store masks off
        safe_m = tl.where(offs_m < M, offs_m, 0)
        safe_n = tl.where(offs_n < N, offs_n, 0)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + lane_k
            a = tl.load(
                a_ptr + safe_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                mask=offs_k[None, :] < K,
                other=0.0,
            )
            b = tl.load(
                b_ptr + offs_k[:, None] * stride_bk + safe_n[None, :] * stride_bn,
                mask=offs_k[:, None] < K,
                other=0.0,
            )
            acc = tl.dot(a, b, acc)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def sm_count(device: torch.device) -> int:
    if device.type == "cuda" and not ON_INTERPRETER:
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 3


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        raise TypeError(f"a and b must be torch.Tensor, got {type(a).__name__}, {type(b).__name__}")
    if a.ndim != 2 or b.ndim != 2:
        raise ValueError(f"a and b must be 2-D, got {tuple(a.shape)}, {tuple(b.shape)}")
    if a.dtype != torch.float16 or b.dtype != torch.float16:
        raise TypeError(f"a and b must be torch.float16, got {a.dtype}, {b.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"inner dimensions differ: a {tuple(a.shape)}, b {tuple(b.shape)}")
    if a.device != b.device:
        raise ValueError(f"a and b on different devices: {a.device}, {b.device}")
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    else:
        if not isinstance(out, torch.Tensor):
            raise TypeError(f"out must be a torch.Tensor, got {type(out).__name__}")
        if out.shape != (M, N) or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError(
                f"out must be torch.float16 of shape {(M, N)} on {a.device}, got "
                f"{tuple(out.shape)} {out.dtype} on {out.device}"
            )
    if M == 0 or N == 0:
        return out
    num_sms = sm_count(a.device)
    grid = lambda META: (
        min(num_sms, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])),
    )
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
        NUM_SMS=num_sms,
    )
    return out
