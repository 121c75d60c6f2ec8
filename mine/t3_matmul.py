"""t3 · Tiled matmul

You will learn: a 2-D grid of output tiles (pid_m, pid_n); the loop over K in steps of
BLOCK_K; addressing 2-D blocks of row-major matrices with [:, None] and [None, :]; masks on all
three dimensions; fp16 inputs with an fp32 accumulator and tl.dot.
Contract: a [M, K] and b [K, N] are fp16, row-major and contiguous, on the same device;
returns c = a @ b, [M, N] fp16, accumulated in fp32. Strided or transposed inputs are T4's.
Lesson: content/t3_matmul.md
"""

import torch
import triton
import triton.language as tl

from drills import NotStarted

BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32


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
    # TODO(t3.1): this program's tile: pid_m, pid_n, and the rows and cols of c it covers
    # TODO(t3.2): a float32 accumulator of zeros, [BLOCK_M, BLOCK_N]
    # TODO(t3.3): loop over K in steps of BLOCK_K (round up); each step:
    #             the ks of this step, pointers to a[rows, ks] and b[ks, cols] (row-major),
    #             masked loads with other=0.0, and acc = tl.dot(a, b, acc)
    # TODO(t3.4): store acc as fp16 into c[rows, cols], masked at the edges of c
    pass


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    raise NotStarted("t3_matmul")  # TODO(t3.0): delete this line when you start
    check_inputs(a, b, out)
    M, K = a.shape
    N = b.shape[1]
    if out is None:
        out = torch.empty((M, N), dtype=torch.float16, device=a.device)
    # TODO(t3.5): a 2-D grid with one program per BLOCK_M x BLOCK_N tile of c (round up)
    # TODO(t3.6): launch matmul_kernel over it
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
