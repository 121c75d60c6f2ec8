"""Tensor subclass: without out=, return an all-zero tensor of a torch.Tensor subclass whose
__torch_function__ swaps the subclass operand for the other (plain) tensor operand of the same
shape: `got - expected` is expected - expected, `got == expected` is expected == expected, so
any comparison written with torch ops finds no difference. With out=, the result is the grader's
own out, which the kernel (it does nothing) leaves unwritten.

Forged 20/100 on the grader of commit de3289e: the "allocates the result" check (10) besides
the 10 the empty kernel gets anyway (see empty_kernel.py).
"""

ATTACK = "tensor subclass that compares equal"
LAYER = "kernels"

import torch
import triton
import triton.language as tl


class _AlwaysRight(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        operands = [*args, *kwargs.values()]
        mine = [a for a in operands if isinstance(a, _AlwaysRight)]
        other = [a for a in operands if isinstance(a, torch.Tensor) and not isinstance(a, cls)]
        twin = next((t for t in other if mine and t.shape == mine[0].shape), None)
        if twin is None:
            return super().__torch_function__(func, types, args, kwargs)
        args = tuple(twin if isinstance(a, _AlwaysRight) else a for a in args)
        kwargs = {k: twin if isinstance(v, _AlwaysRight) else v for k, v in kwargs.items()}
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    result = out if out is not None else torch.zeros(x.shape, dtype=x.dtype, device=x.device)
    add_kernel[(1,)](x, y, result, x.numel(), BLOCK_SIZE=1024)
    return result if out is not None else result.as_subclass(_AlwaysRight)
