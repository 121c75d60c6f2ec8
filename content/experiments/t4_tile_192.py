"""t4, notes "Odd and skinny shapes": at 1000x3000x2000 torch.matmul launches cuBLAS's
nvjet_sm90_hsh_192x128_64x5_1x2_h_bz_coopB_NNT on an H100 (t4_warp_specialized.out): a tile of
192 by 128, 5 stages of 64 along K. cuBLAS is column-major, so its first dimension is most
likely c's columns: 128 rows by 192 columns make 8 x 16 = 128 tiles, 0.97 of a wave on 132 SMs,
where the reference's 128x256 make 96 (0.73) and 128x128 make 192 (1.45). Does a 192-wide tile
bring the persistent kernel from 0.70x of cuBLAS towards it? Needs a Hopper GPU (tensor
descriptors, and the warp-specialization pass is Hopper's). Output: t4_tile_192.out.

Triton's blocks are powers of two, so a tile 192 wide is two blocks side by side: one program
keeps a 128x128 and a 128x64 accumulator, and each K step loads a's [128, 64] block once and
b's [64, 128] and [64, 64] blocks through two descriptors (192 is no block shape one descriptor
can have), for two tl.dot that share a. Likewise a tile 192 high: a 128-row and a 64-row
accumulator that share b's block.

W. 128 x (128+64), persistent (one program per SM, at most one per tile: at 1000x3000x2000
   that is one tile each), 8 warps, 3 and 4 stages (5 do not fit with c's tile in shared
   memory), as the reference's loop with flatten.
S. W warp specialized: 4 warps, the K loop tl.range(..., warp_specialize=True), the tile loop
   without flatten, and no runtime if/else in the kernel (triton 3.6's Hopper pass takes none).
   Each variant's first line says whether the pass fired: the ttg.warp_specialize op in its
   TTGIR.
R. S with c stored from registers by a masked tl.store instead of through shared memory and
   the TMA unit, which leaves room for cuBLAS's 5 stages (8 warps and 5 stages do not fit
   even so: the tl.store's layout conversion takes 32 KB of shared memory).
T. (128+64) x 128, 8 warps, 3 and 4 stages, and warp specialized with 3: 6 x 24 = 144
   tiles, 1.09 waves, the other reading of cuBLAS's name.
And, as the row to beat, the best of t4_warp_specialized.py, its 128x256x64 warp specialized.

Every variant is checked against float64 before it is timed, beside cuBLAS and the persistent
reference as `make bench` runs it, by t4_split_k.py's time_against_cublas (its TFLOP/s, by
do_bench and from a CUDA graph, and the ratio to cuBLAS). Each kernel prints its registers,
spills, shared memory, warps and whether it was warp specialized once, when it first compiles
(t4_warp_specialized.py's Launch); a compile failure or a wrong result prints one line and the
script goes on. 4096^3 is a sanity row, with fewer variants and one program per tile beside
the persistent launch (at 1000x3000x2000 the two are the same launch: 128 tiles, 132 SMs).

Run from the repository root: .venv/bin/python content/experiments/t4_tile_192.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton
import triton.language as tl
from solutions.t4_matmul import grouped_tile
from solutions.t4_matmul_persistent import descriptor_scratch
from content.experiments.t4_split_k import time_against_cublas
from content.experiments.t4_warp_specialized import Launch, persistent


@triton.jit
def store_tile(c_desc, c_ptr, offs_m, offs_n, M, N, stride_cm, acc, ROWS: tl.constexpr,
               COLUMNS: tl.constexpr, TMA_STORE: tl.constexpr):
    """acc, a [ROWS, COLUMNS] tile of c at (offs_m, offs_n), in fp16: through shared memory and
    the TMA unit (c_desc's block), or from registers by a masked tl.store (no shared memory for
    it). TMA_STORE is a constexpr: the if below is decided at compile time, no if/else in the
    kernel's IR."""
    if TMA_STORE:
        c_desc.store([offs_m, offs_n], acc.to(tl.float16))
    else:
        rows = offs_m + tl.arange(0, ROWS)
        columns = offs_n + tl.arange(0, COLUMNS)
        tl.store(c_ptr + rows[:, None] * stride_cm + columns[None, :], acc.to(tl.float16),
                 mask=(rows[:, None] < M) & (columns[None, :] < N))


@triton.jit
def wide_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                BLOCK_SIZE_N2: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                GROUP_SIZE_M: tl.constexpr, WS: tl.constexpr, FLATTEN: tl.constexpr,
                TMA_STORE: tl.constexpr):
    """The persistent kernel (row-major b, no bias) with tiles BLOCK_SIZE_M high and
    BLOCK_SIZE_N + BLOCK_SIZE_N2 wide: two accumulators side by side that share a's block."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    b2_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                        block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N2])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    c2_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                        block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N2])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N + BLOCK_SIZE_N2)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * (BLOCK_SIZE_N + BLOCK_SIZE_N2)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        acc2 = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N2), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WS):
            a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
            # in the last column of tiles this block may lie wholly past N: the TMA unit reads
            # zeros there, and the store below writes nothing
            b2 = b2_desc.load([k * BLOCK_SIZE_K, offs_bn + BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc)
            acc2 = tl.dot(a, b2, acc2)
        store_tile(c_desc, c_ptr, offs_am, offs_bn, M, N, stride_cm, acc,
                   BLOCK_SIZE_M, BLOCK_SIZE_N, TMA_STORE)
        store_tile(c2_desc, c_ptr, offs_am, offs_bn + BLOCK_SIZE_N, M, N, stride_cm, acc2,
                   BLOCK_SIZE_M, BLOCK_SIZE_N2, TMA_STORE)


@triton.jit
def tall_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_M2: tl.constexpr,
                BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                GROUP_SIZE_M: tl.constexpr, WS: tl.constexpr, FLATTEN: tl.constexpr):
    """The same with tiles BLOCK_SIZE_M + BLOCK_SIZE_M2 high and BLOCK_SIZE_N wide: two
    accumulators one above the other that share b's block."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    a2_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                        block_shape=[BLOCK_SIZE_M2, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    c2_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                        block_shape=[BLOCK_SIZE_M2, BLOCK_SIZE_N])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M + BLOCK_SIZE_M2)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * (BLOCK_SIZE_M + BLOCK_SIZE_M2)
        offs_bn = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        acc2 = tl.zeros((BLOCK_SIZE_M2, BLOCK_SIZE_N), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WS):
            a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
            a2 = a2_desc.load([offs_am + BLOCK_SIZE_M, k * BLOCK_SIZE_K])  # past M: zeros
            b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
            acc = tl.dot(a, b, acc)
            acc2 = tl.dot(a2, b, acc2)
        c_desc.store([offs_am, offs_bn], acc.to(tl.float16))
        c2_desc.store([offs_am + BLOCK_SIZE_M, offs_bn], acc2.to(tl.float16))


def wide(sms, M, N, bm, bn, bn2, bk, stages, warps, ws, per_tile=False, tma_store=True):
    """Variants W, S and R's launch(a, b, out): one program per SM, at most one per tile, or
    (per_tile) one per tile, whose tile loop then runs once."""
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn + bn2)
    programs = tiles if per_tile else min(sms, tiles)
    name = (f"{bm}x({bn}+{bn2})x{bk}, WS {ws}, {'TMA' if tma_store else 'tl.store'} store, "
            f"{programs} programs")
    launch = Launch(name, wide_kernel, (programs,),
                    dict(NUM_SMS=programs, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_N2=bn2,
                         BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, WS=ws, FLATTEN=not ws,
                         TMA_STORE=tma_store),
                    dict(num_stages=stages, num_warps=warps))
    return lambda a, b, out: launch(a, b, out, a.shape[0], b.shape[1], a.shape[1],
                                    a.stride(0), b.stride(0), out.stride(0))


def tall(sms, M, N, bm, bm2, bn, bk, stages, warps, ws):
    """Variant T's launch(a, b, out): one program per SM, at most one per tile."""
    programs = min(sms, triton.cdiv(M, bm + bm2) * triton.cdiv(N, bn))
    launch = Launch(f"({bm}+{bm2})x{bn}x{bk}, WS {ws}, {programs} programs", tall_kernel,
                    (programs,),
                    dict(NUM_SMS=programs, BLOCK_SIZE_M=bm, BLOCK_SIZE_M2=bm2, BLOCK_SIZE_N=bn,
                         BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, WS=ws, FLATTEN=not ws),
                    dict(num_stages=stages, num_warps=warps))
    return lambda a, b, out: launch(a, b, out, a.shape[0], b.shape[1], a.shape[1],
                                    a.stride(0), b.stride(0), out.stride(0))


if __name__ == "__main__":
    triton.set_allocator(descriptor_scratch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}, "
          f"{sms} SMs")

    # Shared memory (an H100 or H200 block may have 232448 bytes): a stage of 128x(128+64)x64
    # is a's 128x64 fp16 block (16 KB) and b's 64x128 and 64x64 (16 + 8 KB), 40 KB, and
    # (128+64)x128x64's the same; c's two tiles take 48 KB more for the TMA store. Triton 3.6's
    # sm_90 compile: W and T take 172056 bytes with 3 stages and 213024 with 4 (5: 253992, out);
    # S 156216 and 197192 (its c tiles take 32 KB, not 48), and 5 stages 238312, out; R with 5
    # 221792, where 8 warps without WS would take 237608. T warp specialized: 188952 with 3
    # stages, 229928 with 4. 0 spills in all; 122 registers with 8 warps, 168 with WS (12
    # warps: a producer group and two consumer groups of 4).
    M, N, K = 1000, 3000, 2000
    variants = {}
    for stages in (3, 4):
        variants[f"W 128x(128+64)x64, {stages} stages, 8 warps"] = \
            wide(sms, M, N, 128, 128, 64, 64, stages, 8, ws=False)
    for stages in (3, 4):
        variants[f"S 128x(128+64)x64, {stages} stages, 4 warps, WS"] = \
            wide(sms, M, N, 128, 128, 64, 64, stages, 4, ws=True)
    variants["R 128x(128+64)x64, 5 stages, 4 warps, WS, tl.store"] = \
        wide(sms, M, N, 128, 128, 64, 64, 5, 4, ws=True, tma_store=False)
    for stages in (3, 4):
        variants[f"T (128+64)x128x64, {stages} stages, 8 warps"] = \
            tall(sms, M, N, 128, 64, 128, 64, stages, 8, ws=False)
    variants["T (128+64)x128x64, 3 stages, 4 warps, WS"] = \
        tall(sms, M, N, 128, 64, 128, 64, 3, 4, ws=True)
    variants["C 128x256x64, 3 stages, 4 warps, WS (t4_warp_specialized.py)"] = \
        persistent(sms, M, N, 128, 256, 64, 3, 4, True)
    time_against_cublas(M, N, K, variants)

    # the sanity row: a shape where the reference is near cuBLAS already
    M = N = K = 4096
    variants = {
        "W 128x(128+64)x64, 4 stages, 8 warps": wide(sms, M, N, 128, 128, 64, 64, 4, 8, ws=False),
        "W 128x(128+64)x64, 4 stages, 8 warps, one program per tile":
            wide(sms, M, N, 128, 128, 64, 64, 4, 8, ws=False, per_tile=True),
        "S 128x(128+64)x64, 4 stages, 4 warps, WS":
            wide(sms, M, N, 128, 128, 64, 64, 4, 4, ws=True),
    }
    time_against_cublas(M, N, K, variants)
