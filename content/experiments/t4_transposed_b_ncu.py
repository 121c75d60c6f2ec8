"""t4, notes §4: the two launches to profile with Nsight Compute, b row-major then b = w.t() at
4096^3, each twice, with the reference's matmul_kernel forced to 128 x 256 x 64, 3 stages, 8
warps. Needs a GPU and ncu. The repository keeps no profile from it: no figure in
content/t4_notes.md comes from this script.

It ran through matmul, which then launched matmul_kernel for every layout; it now calls
the drill's launch (launch_tiled here): the benchmark's reference sends b = w.t() to the
persistent kernel on a Hopper GPU.

Run from the repository root:
ncu --clock-control none -k regex:matmul_kernel --launch-count 4 --section SpeedOfLight \\
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \\
    python3 content/experiments/t4_transposed_b_ncu.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from solutions.t4_matmul import launch as launch_tiled, matmul_kernel
matmul_kernel.configs = [triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8}, num_stages=3, num_warps=8)]
a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
for b in (w, w.t()):
    for _ in range(2):
        launch_tiled(a, b, torch.empty(4096, 4096, device="cuda", dtype=torch.float16), None)
torch.cuda.synchronize()
