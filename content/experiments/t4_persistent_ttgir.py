"""t4, notes §3: does `.T` on a tile read through a descriptor move data? Needs no GPU: it
compiles the reference's matmul_persistent_kernel for sm_90 (128 x 256 x 64, 3 stages, 8 warps,
every integer a multiple of 16), with b = w.t() and with b row-major, and counts operations in
the TTGIR. This is the script, as it ran, behind the claim in content/t4_notes.md.

Run from the repository root, with the interpreter off:
TRITON_INTERPRET=0 python3 content/experiments/t4_persistent_ttgir.py
"""
import sys, re
sys.path.insert(0, ".")
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from solutions import t4_matmul_persistent as ref
fn = ref.matmul_persistent_kernel.fn
print("triton", triton.__version__)
for kmaj in (True, False):
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, NUM_SMS=132, B_KMAJOR=kmaj, bias_ptr=None)
    sig = {n: "constexpr" if n in constexprs else "*fp16" if n.endswith("_ptr") else "i32" for n in fn.arg_names}
    attrs = {(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names) if n not in constexprs}
    k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=constexprs, attrs=attrs), target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 3})
    g = k.asm["ttgir"]
    print(kmaj, {op: len(re.findall(op, g)) for op in ["ttg.memdesc_trans", "ttg.local_load", "ttg.local_store", "ttg.convert_layout", "ttng.warp_group_dot ", "async_tma_copy_global_to_local"]})
