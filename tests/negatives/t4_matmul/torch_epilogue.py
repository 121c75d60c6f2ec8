"""The optional exercise done in torch: the reference matmul, then + bias and GELU as two more
passes over c, which is the memory traffic the fused epilogue exists to save."""

import torch

from solutions.t4_matmul import grouped_tile, matmul, matmul_kernel  # noqa: F401

LOSES = ["fuses bias + GELU into the epilogue (optional, not counted)"]
SAYS = "torch"


def matmul_bias_gelu(a, b, bias, out=None):
    c = torch.nn.functional.gelu(matmul(a, b).float() + bias.float()).half()
    if out is None:
        return c
    out.copy_(c)
    return out
