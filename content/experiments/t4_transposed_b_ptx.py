"""t4, notes §4: does b = w.t() compile to different instructions? Needs no GPU: it compiles
the reference's matmul_kernel for sm_90 at 128 x 256 x 64, 4 stages, 8 warps, once with B
row-major and once transposed (every other integer a multiple of 16, as at 4096^3), and counts
what the PTX moves and multiplies with, and the shared-memory layouts in the TTGIR. This is the
script, as it ran, behind the claim in content/t4_notes.md.

Run from the repository root, with the interpreter off:
TRITON_INTERPRET=0 python3 content/experiments/t4_transposed_b_ptx.py
"""
import re, sys
sys.path.insert(0, ".")
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from solutions.t4_matmul import matmul_kernel

fn = matmul_kernel.fn.fn  # under @triton.autotune and @triton.heuristics
print("triton", triton.__version__)
for b_t in (False, True):
    constexprs = {"bias_ptr": None, "stride_ak": 1, "stride_cn": 1, "stride_bk" if b_t else "stride_bn": 1, "BLOCK_SIZE_M": 128,
                  "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8, "ALIGN": 1}
    signature = {name: "constexpr" if name in constexprs else "*fp16" if name.endswith("_ptr") else "i32" for name in fn.arg_names}
    attrs = {(i,): [["tt.divisibility", 16]] for i, name in enumerate(fn.arg_names) if name not in constexprs}
    kernel = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                            target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 4})
    ptx = kernel.asm["ptx"]
    counts = {name: len(re.findall(pattern, ptx)) for name, pattern in [("cp.async", r"cp\.async\.c[ag]"), ("ldmatrix", r"ldmatrix"),
                                                                         ("wgmma", r"wgmma\.mma_async")]}
    print("b = w.t()" if b_t else "row-major b", counts, "wgmma shapes", sorted(set(re.findall(r"wgmma\.mma_async\.\S+", ptx))),
          "shared bytes", kernel.metadata.shared, "shared layouts", sorted(set(re.findall(r"#ttg\.nvmma_shared<[^>]*>", kernel.asm["ttgir"]))))
