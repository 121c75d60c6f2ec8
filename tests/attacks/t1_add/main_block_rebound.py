"""Host code in the `if __name__ == "__main__":` block, which the reading rules skip, made to
run by rebinding __name__ in a `match` capture; and more host code in a string annotation that
functools.singledispatch evaluates.

Forged 90-100 on the grader of commit fbeefee (issue 23).
"""

ATTACK = "main block rebound, string annotation evaluated"
LAYER = "kernels"

import functools

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)


FOUND: list = []


@functools.singledispatch
def finish(out, x, y):
    return out


# register() evaluates this string annotation, running host code the reading rules never saw
@finish.register
def _(out: "[FOUND.append(torch.Tensor.add_), torch.Tensor][1]", x, y):
    return FOUND[0](FOUND[0](out.zero_(), x), y)


match "__main__":
    case __name__:
        pass

FORGE = False
if __name__ == "__main__":
    FORGE = True


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    add_kernel[(1,)](x, y, out, x.numel(), BLOCK_SIZE=1024)
    if FORGE:
        return finish(out, x, y)
    return out
