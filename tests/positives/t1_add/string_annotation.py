"""Correct, written differently: PyTorch's test-suite style (test/inductor's
add_kernel_autotuned), with the constexpr written as a string annotation,
`BLOCK_SIZE: "tl.constexpr"`, and the kernel autotuned over a few block sizes keyed on
n_elements. Triton recognises the string "tl.constexpr" as a constexpr annotation, so
BLOCK_SIZE is still a compile-time constant; because autotune picks it, the grid is a lambda of
META and always covers cdiv(n_elements, BLOCK_SIZE) blocks of the config that was chosen. Loads
and the store are masked with offsets < n_elements, offsets are int64, and the add happens in
the inputs' own dtype. The same list serves the CPU interpreter, where the grader's runner
reads the string annotation and lets the autotuner keep the first config."""

import torch
import triton
import triton.language as tl

CONFIGS = [
    triton.Config({"BLOCK_SIZE": 256}, num_warps=4),
    triton.Config({"BLOCK_SIZE": 128}, num_warps=4),
    triton.Config({"BLOCK_SIZE": 1024}, num_warps=8),
]


@triton.autotune(configs=CONFIGS, key=["n_elements"])
@triton.jit
def add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    pid = tl.program_id(axis=0)
    block_start = pid.to(tl.int64) * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    for label, t in (("x", x), ("y", y), ("out", out)):
        if t is None and label == "out":
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{label} must be a tensor, got a {type(t).__name__}")
        if t.dim() != 1:
            raise ValueError(f"{label} must be a 1-D tensor; its shape is {tuple(t.shape)}")
        if not t.is_contiguous():
            raise ValueError(f"{label} must be contiguous; its stride is {t.stride()}")
    for label, t in (("y", y), ("out", out)):
        if t is not None and (t.shape != x.shape or t.dtype != x.dtype or t.device != x.device):
            raise ValueError(
                f"{label} ({tuple(t.shape)}, {t.dtype}, {t.device}) does not match x "
                f"({tuple(x.shape)}, {x.dtype}, {x.device})"
            )
    if out is None:
        out = torch.empty_like(x)
    n_elements = out.numel()
    if n_elements == 0:
        return out
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n_elements)
    return out
