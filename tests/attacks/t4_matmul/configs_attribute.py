"""A plain @triton.jit kernel given a `configs` attribute: T4's every-config check asked the
runner whether matmul_kernel was autotuned, so the claim alone earned its 15 points on the
CPU. The product itself comes from torch.

Forged 15 points of the every-config check on the grader of commit fbeefee (issue 23).
"""

ATTACK = "autotune claimed with a configs attribute"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    return pid, pid


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)


matmul_kernel.configs = [triton.Config({"BLOCK_SIZE_M": 32})]


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float16, device=a.device)
    M, K = a.shape
    matmul_kernel[(1,)](a, b, out, M, b.shape[1], K, BLOCK_SIZE_M=32)
    out.copy_(a @ b)
    return out
