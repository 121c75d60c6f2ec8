"""t4, notes "Odd and skinny shapes": at 1000x3000x2000 the persistent kernel's 128x256 tiles
make 96 tiles for 132 SMs, 0.73 of a wave. Do smaller tiles, which make more tiles than SMs
(128x128: 192, 1.45 waves; 128x64 and 64x128: 376 and 384, 2.9; 64x64: 752, 5.7), win back the
idle SMs? Each tile config runs with one program per SM (the persistent loop), two per SM, and
one per tile (data-parallel). Needs a Hopper GPU (tensor descriptors). Output: t4_wave_tiles.out.

Every variant is checked against float64 before it is timed, beside cuBLAS and the persistent
reference as `make bench` runs it, by t4_split_k.py's time_against_cublas.

Run from the repository root: .venv/bin/python content/experiments/t4_wave_tiles.py
"""
import sys
sys.path.insert(0, ".")
sys.path.insert(0, "content/experiments")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
from solutions.t4_matmul_persistent import descriptor_scratch, matmul_persistent_kernel
from t4_split_k import time_against_cublas

# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps)
TILES = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8), (128, 128, 64, 4, 4),
         (128, 128, 128, 3, 8), (64, 256, 64, 4, 8), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4),
         (128, 64, 128, 4, 4), (64, 128, 128, 3, 4), (64, 64, 64, 4, 4)]


def persistent_with(programs, bm, bn, bk, stages, warps):
    """The benchmark reference's kernel with one config forced and `programs` programs, each
    looping over every programs-th tile (as many as tiles: one tile each)."""
    def launch(a, b, out):
        M, K = a.shape
        N = b.shape[1]
        return matmul_persistent_kernel.fn[(programs,)](
            a, b, out, None, M, N, K, a.stride(0), b.stride(0), out.stride(0), B_KMAJOR=False,
            NUM_SMS=programs, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8,
            num_stages=stages, num_warps=warps)
    return launch


if __name__ == "__main__":
    triton.set_allocator(descriptor_scratch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}, "
          f"{sms} SMs")
    M, N, K = 1000, 3000, 2000
    variants = {}
    for bm, bn, bk, stages, warps in TILES:
        tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
        for programs in sorted({min(sms, tiles), min(2 * sms, tiles), tiles}):
            name = (f"{bm}x{bn}x{bk}, {stages} stages, {warps} warps: {tiles} tiles, "
                    f"{programs} programs")
            variants[name] = persistent_with(programs, bm, bn, bk, stages, warps)
    time_against_cublas(M, N, K, variants)
