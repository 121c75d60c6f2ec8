"""What the errors a learner meets usually mean (no torch here: the compile child uses it)."""

import re

# Compiler and runtime errors a learner meets (a regular expression each), and what they
# usually mean.
FP16_ACCUMULATOR = (
    "tl.dot(a, b, acc) needs acc in its output type, float32 by default: an fp16 accumulator is "
    "refused on a GPU (and by the interpreter before triton 3.8). Start it as tl.zeros(..., "
    "dtype=tl.float32) and convert once after the loop."
)

_KNOWN_ERRORS = {
    # On a GPU (triton <= 3.7), tl.dot(a, b, acc) asserts, without a message, that acc has the
    # dot's output type (float32 unless out_dtype says otherwise): the compile error is only
    # the source, ending with a caret under the tl.dot.
    r"tl\.dot\([^\n]*\n *\^\s*(?:AssertionError\(\)\s*)?$": FP16_ACCUMULATOR,
    # the interpreter (triton <= 3.7) asserts the same, and the judge shows the line it stopped at
    r"AssertionError: *\n\s+at [^\n]*, line \d+: [^\n]*tl\.dot\([^,()]+,[^,()]+,": FP16_ACCUMULATOR,
    r"Unsupported function referenced|Cannot access global variable": "A kernel can only "
    "use module-level names that are @triton.jit functions or tl.constexpr values (NAME = "
    "tl.constexpr(...)): decorate the helper, or pass the value in as an argument. The "
    "interpreter runs plain Python, so only a GPU compiler refuses this.",
    # triton's words: "Loop-carried variable acc has initial type fp32 but is re-assigned to
    # <['32', '32'], fp32> in loop!": a scalar start (acc = 0.0) that the loop makes a block
    r"Loop-carried variable \S+ has initial type \w+ but is re-assigned to <\[": "A variable "
    "starts as a scalar and becomes a block inside the loop: an accumulator started as 0.0 "
    "is one number, and `acc += tl.dot(...)` makes it a block. Start it as the block it "
    "becomes: tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32).",
    r"Loop-carried variable": "A variable changes type inside a loop: an accumulator "
    "started as fp16 becomes fp32 after `acc += tl.dot(...)`. Start it as tl.float32 and "
    "convert once after the loop.",
    r"K >= 16": "tl.dot on a GPU needs blocks of at least 16 along K (BLOCK_K, or BLOCK_SIZE_K, >= 16) "
    "for 16-bit inputs; the interpreter accepts smaller ones.",
    r"num_warps must be a power of 2": "A GPU takes num_warps as a power of two from 1 to 32 "
    "(32 threads each, 1024 at most in one program): choose it from the block size, and cap "
    "it (4, 8 or 16 warps).",
    r"exceeds triton maximum tensor numel": "A block holds at most 2^20 (1048576) elements, "
    "on a GPU and on the interpreter alike: keep BLOCK_SIZE fixed (1024, say) and launch more "
    "programs, cdiv(n, BLOCK_SIZE) of them, or loop over the rest of the data inside each "
    "program.",
    r"arange's range must be a power of 2": "Block sizes must be powers of two: round up "
    "with triton.next_power_of_2 and mask the extra lanes.",
    r"\[Errno 1\] Operation not permitted": "Your file runs in a runner that cannot start "
    "processes (fork, subprocess, exec) or change what it does not own: a drill's host code "
    "needs neither.",
    # triton 3.9 removed block pointers; 3.7 and 3.8 warn at every call
    r"Block pointers have been removed": "triton 3.9 removed block pointers (tl.make_block_ptr "
    "and tl.advance); 3.8 and older still run them. Use pointer arithmetic, as the lessons do "
    "(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak, with masks), or a "
    "tensor descriptor: tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, "
    "stride_ak], block_shape=[BLOCK_M, BLOCK_K]) and desc.load([m, k]), which pads the edges "
    "with zeros (on a GPU, call triton.set_allocator in host code first).",
    r"(key|reset_to_zero|restore_value) contains names that are not kernel arguments": "An "
    "autotune key (or reset_to_zero, restore_value) names something that is not an argument "
    "of the kernel. triton 3.9 refuses it; older versions dropped the name silently, so the "
    "kernel tuned once, for the first shape, and never again. Use the kernel's own argument "
    "names: key=['M', 'N', 'K'].",
    # host code that insists on a GPU, where the grader has none (the interpreter's tensors are
    # on the CPU): torch's words, or the learner's line that asked
    r"Found no NVIDIA driver|Torch not compiled with CUDA|\bis_cuda\b|device\.type *== *.cuda": (
        "Host code that insists on a GPU: on a machine without one, the grader runs your "
        "kernels on Triton's CPU interpreter, with CPU tensors. Allocate on the inputs' device "
        "(torch.empty_like(x), device=x.device) and check that the inputs share one (x.device "
        "== y.device), not that it is cuda. There, torch.cuda's questions about the device "
        "(get_device_properties, get_device_capability) get a nominal sm_90's answers, and "
        "synchronize() returns at once."
    ),
    r"no allocator was set": "A kernel that makes tensor descriptors (tl.make_tensor_descriptor) "
    "needs scratch memory on a GPU: call triton.set_allocator(alloc) in host code before the "
    "launch, with alloc(size, alignment, stream) returning torch.empty(size, device='cuda', "
    "dtype=torch.int8).",
    # triton 3.9 compiles chained comparisons; older versions refuse every one
    r"simultaneous multiple comparison is not supported": "A chained comparison: `lo <= x < "
    "hi` compiles from triton 3.9 on, and older versions refuse it. Often it is not meant: "
    "`rows < M & cols < N` reads as rows < (M & cols) < N, since & binds tighter than a "
    "comparison. Put each comparison in parentheses: (rows < M) & (cols < N).",
    # triton's words: "Autotuner.run() got multiple values for keyword argument 'BLOCK_SIZE_M'"
    # where one config runs, "Conflicting meta-parameters: BLOCK_SIZE_M" where several are timed
    r"(Autotuner|Heuristics)\.run\(\) got multiple values for keyword argument"
    r"|Conflicting meta-parameters": "A value that @triton.autotune (or @triton.heuristics) "
    "sets, such as a config's block size, is passed at launch too: each config passes its own. "
    "Leave it out of the launch; the grid reads the chosen one as META['BLOCK_SIZE_M'].",
    # triton's words where two blocks' shapes meet: "Cannot make_shape_compatible: incompatible
    # dimensions at index 1: 128 and 8", most often a reduction's result used as x's shape
    r"incompatible dimensions at index": "Two blocks of different shapes meet in one "
    "operation. A reduction drops the axis it reduces: tl.max(x, axis=1) of a [ROWS, BLOCK] "
    "block is [ROWS], one value per row. Give it the axis back to combine it with x: "
    "x - tl.max(x, axis=1)[:, None] (blocks line up from their last axis, as in numpy, so "
    "without [:, None] the row maxes would meet x's columns).",
    r"illegal memory access": "A load or store reached an address outside every tensor: "
    "check the masks and the offsets (and int32 offsets past 2^31).",
    # torch's words when a launch finds no GPU memory for the kernel's code or scratch
    r"CUDA error: out of memory": "The GPU had no memory left when this launch ran (loading a "
    "kernel and its scratch space take some): other processes hold it (a notebook's, another "
    "grade's: nvidia-smi lists them), or your host code allocated it. Free it and grade again.",
    # torch's words for cudaErrorMisalignedAddress: "CUDA error: misaligned address"
    r"misaligned address": "An access came at an address less aligned than its instruction "
    "needs. Through a tensor descriptor (tl.make_tensor_descriptor, TensorDescriptor), a "
    "tensor descriptor's base and every stride but the last must be multiples of 16 bytes: a "
    "view that starts mid-row, or has gaps between its rows, cannot be described; load it with "
    "tl.load. Otherwise look for a tl.multiple_of or tl.max_contiguous hint that promises more "
    "than this case's sizes and strides keep.",
}


def explain(message: str) -> str:
    """What an error message usually means for a learner, or "" if it is not a known one."""
    for pattern, meaning in _KNOWN_ERRORS.items():
        if re.search(pattern, message):
            return meaning
    return ""


def compile_error_text(e: BaseException) -> str:
    """A compile error's words, down to its reason: triton's CompilationError at a kernel names
    only the line that calls a helper, and raises it from the helper's own CompilationError,
    which names the line and the reason (a global it cannot read, a type it refuses)."""
    parts = [str(e).strip()]
    cause = e.__cause__
    while type(cause).__name__ == "CompilationError" and len(parts) < 8:
        parts.append(str(cause).strip())
        cause = cause.__cause__
    return "\n".join(parts)
