"""t4, notes §4: how to tell the compiler that an integer argument is a multiple of 8. Needs
no GPU: it compiles one small copy kernel for sm_90 three ways and counts the loads in the PTX.
This is the script, as it ran, behind the claim in content/t4_notes.md.

  0  the stride as passed: Triton knows only whether it is a multiple of 16
  1  stride = tl.multiple_of(stride, 8)
  2  stride = stride // 8 * 8

Run from the repository root, with the interpreter off: TRITON_INTERPRET=0 python3 content/experiments/t4_multiple_of.py
"""
import re, triton, triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def copy_rows(x_ptr, y_ptr, stride, HOW: tl.constexpr):
    if HOW == 1:
        stride = tl.multiple_of(stride, 8)
    if HOW == 2:
        stride = stride // 8 * 8
    row = tl.program_id(0)
    offs = tl.arange(0, 1024)
    tl.store(y_ptr + row * stride + offs, tl.load(x_ptr + row * stride + offs))


print("triton", triton.__version__)
for how in (0, 1, 2):
    # the pointers get what Triton gives a torch tensor's data pointer: "a multiple of 16 bytes"
    source = ASTSource(fn=copy_rows, signature={"x_ptr": "*fp16", "y_ptr": "*fp16", "stride": "i32", "HOW": "constexpr"},
                       constexprs={"HOW": how}, attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
    ptx = triton.compile(source, target=GPUTarget("cuda", 90, 32)).asm["ptx"]
    print(how, "2-byte loads:", len(re.findall(r"ld\.global[^;]*\.b16 ", ptx)), " 16-byte loads:", len(re.findall(r"ld\.global[^;]*\.v4", ptx)))
