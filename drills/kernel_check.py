"""`make doctor`'s check of the environment in a copy without the reference solutions (a course
copy leaves solutions/ out): a small kernel of its own, no drill's, run by triton on this
machine's runtime (the GPU, or the CPU interpreter) and compared with torch.
`python -m drills.kernel_check` prints one line and exits 0 when the kernel's result is right."""

import sys

from drills import runtime


def main() -> int:
    chosen = runtime.current()  # before triton.language is imported: it may choose the interpreter
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def twice_plus_one(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        tl.store(out_ptr + offsets, 2 * tl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)

    n = 1000  # not a multiple of the block: the mask is used
    x = torch.randn(n, device="cuda" if chosen.is_gpu else "cpu")
    out = torch.empty_like(x)
    twice_plus_one[(triton.cdiv(n, 256),)](x, out, n, BLOCK_SIZE=256)
    if not torch.allclose(out, 2 * x + 1):
        print(f"a kernel of the doctor's own gave a wrong result on the {chosen.description}")
        return 1
    print(f"a kernel of the doctor's own ran right on the {chosen.description}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
