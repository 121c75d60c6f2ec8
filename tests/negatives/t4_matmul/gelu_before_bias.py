"""The optional epilogue applies GELU to the product first and adds the bias after it, so the
bias shifts the output instead of the activation's input. matmul itself is the reference's."""

import torch
import triton
import triton.language as tl

from solutions.t4_matmul import grouped_tile, matmul, matmul_kernel  # noqa: F401

LOSES = ["fuses bias + GELU into the epilogue (optional, not counted)"]
SAYS = "bias[offs_bn]"


@triton.jit
def bias_gelu_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn):
    BLOCK: tl.constexpr = 32
    offs_m = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    offs_n = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    offs_k = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        ks = k + offs_k
        a_mask = (offs_m[:, None] < M) & (ks[None, :] < K)
        b_mask = (ks[:, None] < K) & (offs_n[None, :] < N)
        a = tl.load(a_ptr + offs_m[:, None] * sam + ks[None, :] * sak, mask=a_mask, other=0.0)
        b = tl.load(b_ptr + ks[:, None] * sbk + offs_n[None, :] * sbn, mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    c = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476)) + bias[None, :]
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptr + offs_m[:, None] * scm + offs_n[None, :] * scn, c.to(tl.float16), mask=mask)


def matmul_bias_gelu(a, b, bias, out=None):
    M, K = a.shape
    N = b.shape[1]
    out = out if out is not None else torch.empty((M, N), dtype=torch.float16, device=a.device)
    grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
    bias_gelu_kernel[grid](a, b, out, bias, M, N, K, *a.stride(), *b.stride(), *out.stride())
    return out
