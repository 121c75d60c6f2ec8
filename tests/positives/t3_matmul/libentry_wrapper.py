"""Correct, written differently: the host side of FlagGems' operators, written anew. The kernel is
wrapped in a `libentry()` decorator: a triton.KernelInterface subclass of the file's own that
sits between `matmul_kernel[grid](...)` and the @triton.jit function, and forwards each launch to
it (FlagGems' LibEntry does this to cache the specialisation key on the host). The module keeps
its settings in a types.SimpleNamespace and logs through `logging`, as that library does; a
stride argument pair per operand keeps the kernel general, although the drill's inputs are
row-major. The host code never touches a value: the kernel is a plain masked tiled matmul with
an fp32 accumulator. Scored 0/100 on the grader of commit fbeefee, whose reading of the host code
refused `import types`."""

import logging
import types

import torch
import triton
import triton.language as tl

LOG = logging.getLogger("drills.t3.libentry")
SETTINGS = types.SimpleNamespace(block_m=128, block_n=128, block_k=32, num_warps=8)


class LibEntry(triton.KernelInterface):
    """Forwards every launch to the jitted function, counting the shapes it has seen."""

    def __init__(self, fn):
        self.fn = fn
        self.arg_names = fn.arg_names
        self.seen: set[tuple] = set()

    def run(self, *args, **kwargs):
        key = tuple(a.shape if isinstance(a, torch.Tensor) else a for a in args[:6])
        if key not in self.seen:
            self.seen.add(key)
            LOG.debug("matmul_kernel: new key %s", key)
        return self.fn.run(*args, **kwargs)


def libentry():
    return LibEntry


@libentry()
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
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)  # rm * stride_am passes 2^31
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + rk
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
        acc += tl.dot(a, b)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(C + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc.to(tl.float16), mask=mask)


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    LOG.debug("GEMM: a %s, b %s", tuple(a.shape), tuple(b.shape))
    M, K = a.shape
    K2, N = b.shape
    if K != K2:
        raise ValueError(f"a is {M}x{K} but b is {K2}x{N}: the inner sizes differ")
    c = torch.empty((M, N), device=a.device, dtype=torch.float16) if out is None else out
    grid = (triton.cdiv(M, SETTINGS.block_m), triton.cdiv(N, SETTINGS.block_n))
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
        BLOCK_M=SETTINGS.block_m,
        BLOCK_N=SETTINGS.block_n,
        BLOCK_K=SETTINGS.block_k,
        num_warps=SETTINGS.num_warps,
    )
    return c
