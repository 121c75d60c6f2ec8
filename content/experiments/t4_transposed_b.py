"""t4, notes §4: b = w.t() at 4096^3, the reference kernel forced to each config below (its
own list, then larger BLOCK_SIZE_K), beside cuBLAS before and after. Needs a GPU. This is the
script, as it ran, behind the numbers in content/t4_notes.md.

It ran through matmul, which then launched matmul_kernel for every layout; it now calls
the drill's launch (launch_tiled here): the benchmark's reference sends b = w.t() to the
persistent kernel on a Hopper GPU.

Run from the repository root: python3 content/experiments/t4_transposed_b.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from triton.testing import do_bench
from solutions.t4_matmul import GPU_CONFIGS, launch as launch_tiled, matmul_kernel
extra = [triton.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8}, num_stages=s, num_warps=w)
         for bm, bn, bk, s, w in [(128, 256, 128, 2, 8), (256, 128, 128, 2, 8), (128, 128, 128, 3, 8), (128, 128, 128, 4, 8),
                                  (128, 128, 64, 5, 8), (256, 128, 64, 4, 8), (128, 256, 64, 4, 8)]]
size = 4096
a = torch.randn(size, size, device="cuda", dtype=torch.float16); b = torch.randn(size, size, device="cuda", dtype=torch.float16).t()
c = torch.empty(size, size, device="cuda", dtype=torch.float16)
tflops = lambda ms: 2 * size**3 / ms / 1e9
print(f"cuBLAS {tflops(do_bench(lambda: torch.matmul(a, b), return_mode='median')):.0f} TFLOP/s", flush=True)
configs = matmul_kernel.configs
for config in GPU_CONFIGS + extra:
    matmul_kernel.configs = [config]; matmul_kernel.cache.clear()
    try:
        launch_tiled(a, b, c, None)
    except triton.runtime.errors.OutOfResources as e:
        print(f"  {config}: out of resources ({e})", flush=True); continue
    assert torch.allclose(c.float(), a.float() @ b.float(), atol=1, rtol=0.02)
    print(f"  {config}: {tflops(do_bench(lambda: launch_tiled(a, b, c, None), return_mode='median')):.0f}", flush=True)
matmul_kernel.configs = configs
print(f"cuBLAS {tflops(do_bench(lambda: torch.matmul(a, b), return_mode='median')):.0f} TFLOP/s", flush=True)
