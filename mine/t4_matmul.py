"""t4 · Grouped, strided, autotuned matmul

You will learn: a 1-D grid visited in grouped order (GROUP_SIZE_M) so that programs running at
the same time share rows of A and columns of B in the L2 cache; pointer blocks built from
strides, so transposed and sliced operands need no copy; the main loop with pointer increments
and the K remainder; autotuning over configs (and why the grid must be a function of the
chosen one); num_stages; the epilogue.
Contract: a [M, K] and b [K, N] are fp16 with any strides (b may be w.t(), either may be a
slice), on the same device; returns c = a @ b, [M, N] fp16, accumulated in fp32.
Lesson: content/t4_matmul.md
"""

import os

import torch
import triton
import triton.language as tl

from drills import NotStarted

# Autotuning times every config on a GPU. The interpreter has nothing to time, so it gets one
# small config, whose blocks (32 x 16) no hard-coded grid is likely to match.
GPU_CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
        num_stages=stages,
        num_warps=warps,
    )
    for bm, bn, bk, stages, warps in [
        (128, 256, 64, 3, 8),
        (64, 256, 32, 4, 4),
        (128, 128, 32, 4, 4),
        (128, 64, 32, 4, 4),
        (64, 128, 32, 4, 4),
        (128, 32, 32, 4, 4),
        (64, 32, 32, 5, 2),
        (32, 64, 32, 5, 2),
    ]
]
INTERPRETER_CONFIG = triton.Config(
    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}
)
# decided at import, like the kernels: @triton.jit reads TRITON_INTERPRET when it decorates
INTERPRETING = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """The (pid_m, pid_n) tile of program `pid`: groups of GROUP_SIZE_M rows of tiles, each
    walked column by column, so consecutive programs share their columns of B."""
    # TODO(t4.1): the group of this pid (GROUP_SIZE_M rows of tiles each), its first row of
    #             tiles, and its height: the last group may have fewer than GROUP_SIZE_M rows
    # TODO(t4.2): pid_m and pid_n, walking the group column by column; return them
    return 0, 0


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
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
):
    # TODO(t4.3): pid, the number of tiles along M and N, and this program's tile from
    #             grouped_tile
    # TODO(t4.4): offsets of the tile's rows, columns and of one BLOCK_SIZE_K step; pointer
    #             blocks for a and b built from their strides
    # TODO(t4.5): an fp32 accumulator; loop over K: masked loads (the last step holds fewer
    #             than BLOCK_SIZE_K), acc = tl.dot(a, b, acc), advance both pointer blocks
    # TODO(t4.6): epilogue: convert to fp16, store through c's strides, masked at the edges
    pass


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotStarted("t4_matmul")  # TODO(t4.0): delete this line when you start
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    # TODO(t4.7): a grid that is a function of the config autotune picks (META), then
    #             launch matmul_kernel with every stride of a, b and out
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
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's columns must equal b's rows"
        )
    if a.device != b.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}")
    if out is not None:
        shape = (a.shape[0], b.shape[1])
        if out.shape != shape or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError(
                f"out must be a {shape} fp16 tensor on {a.device}, got {tuple(out.shape)} "
                f"{out.dtype} on {out.device}"
            )


# Optional (content/t4_matmul.md §7): matmul_bias_gelu(a, b, bias, out=None), with bias + GELU
# applied in your kernel's epilogue. It earns no points; once you define it, "multiplies matrices"
# checks it too, and a wrong one costs that check.
