"""Correct, written differently: host code written for a GPU, as library code is. It sizes a
grid-stride grid from torch.cuda.get_device_properties(x.device).multi_processor_count (tutorial
09 asks the same at import), launches inside `with torch.cuda.device(x.device):` and calls
torch.cuda.synchronize() before it returns. Where there is no GPU, the grader of commit 2459ce8
let torch answer, so the import failed on the CPU ("RuntimeError: Found no NVIDIA driver on your
system") and the file got 0/100 there; the runner now answers torch.cuda's questions for the
interpreter's nominal device, its synchronize returns at once and its device() switches nothing.
Not run on a GPU, where these are torch's own calls."""

import torch
import triton
import triton.language as tl

SM_COUNT_AT_IMPORT = torch.cuda.get_device_properties("cuda").multi_processor_count


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # each program walks every num_programs-th block
    for block in tl.range(tl.program_id(0), tl.cdiv(n_elements, BLOCK_SIZE), tl.num_programs(0)):
        offsets = block.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        y = tl.load(y_ptr + offsets, mask=mask)
        tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    if out is None:
        out = torch.empty_like(x)
    n_elements = x.numel()
    programs = 4 * torch.cuda.get_device_properties(x.device).multi_processor_count
    assert programs >= SM_COUNT_AT_IMPORT
    grid = (max(1, min(programs, triton.cdiv(n_elements, 1024))),)
    with torch.cuda.device(x.device):  # launch on the inputs' GPU, where there are several
        add_kernel[grid](x, y, out, n_elements, BLOCK_SIZE=1024)
    torch.cuda.synchronize()
    return out
