"""t4, notes "Odd and skinny shapes": stream-K. Does dealing K's blocks out evenly over a fixed
number of programs bring 1000x3000x2000 (96 tiles of 128x256 for 132 SMs) and 16x4096x4096
to cuBLAS, where splitting every tile's K the same way did not (t4_split_k.out)? Needs a
Hopper GPU (tensor descriptors). Output: t4_stream_k.out.

The work is every (tile, block of K) pair, tile by tile; program p takes the pairs
[p * share, (p + 1) * share). A tile whose pairs all fall to one program is written at once.
A tile shared between programs gets an fp32 partial from each, in a slot of that program's
own (slot 0 for the first tile it touches, 1 for its last), and a count of the K blocks done;
the program whose add completes the count adds the others' partials to its own, writes the
tile and sets the count back to 0 for the next launch. Nobody waits.

Every config is checked against float64 before it is timed; each time is the median of three
alternating rounds, by do_bench (L2 flushed) and from a CUDA graph (t4_split_k.py's
time_against_cublas, which both experiments share).

Run from the repository root: .venv/bin/python content/experiments/t4_stream_k.py
"""
import sys
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import itertools
import torch, triton
import triton.language as tl
from solutions.t4_matmul import grouped_tile
from solutions.t4_matmul_persistent import descriptor_scratch
from content.experiments.t4_split_k import time_against_cublas


@triton.jit
def stream_k_kernel(a_ptr, b_ptr, c_ptr, partial_ptr, done_ptr, M, N, K, stride_am, stride_bk,
                    stride_cm, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                    BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_blocks = tl.cdiv(K, BLOCK_SIZE_K)
    work = num_pid_m * num_pid_n * k_blocks
    share = tl.cdiv(work, tl.num_programs(axis=0))
    pid = tl.program_id(axis=0)
    start = pid * share
    end = tl.minimum(start + share, work)
    tile_size: tl.constexpr = BLOCK_SIZE_M * BLOCK_SIZE_N
    in_tile = tl.arange(0, BLOCK_SIZE_M)[:, None] * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)[None, :]
    first_tile = start // k_blocks
    at = start
    while at < end:
        tile = at // k_blocks
        k_first = at - tile * k_blocks
        k_end = tl.minimum(k_blocks, k_first + end - at)
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(k_first, k_end):
            a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc)
        if (k_first == 0) & (k_end == k_blocks):
            c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))
        else:
            slot = pid * 2 + (tile != first_tile).to(tl.int32)
            tl.store(partial_ptr + slot.to(tl.int64) * tile_size + in_tile, acc)
            # every thread's part of the partial is stored before the count says it is there;
            # acq_rel: the program that completes the count sees the others' partials
            tl.debug_barrier()
            before = tl.atomic_add(done_ptr + tile, k_end - k_first, sem="acq_rel")
            if before + k_end - k_first == k_blocks:
                # the programs whose shares meet this tile's pairs, each's slot for it
                for other in range((tile * k_blocks) // share, ((tile + 1) * k_blocks - 1) // share + 1):
                    if other != pid:
                        other_slot = other * 2 + (tile != (other * share) // k_blocks).to(tl.int32)
                        acc += tl.load(partial_ptr + other_slot.to(tl.int64) * tile_size + in_tile,
                                       cache_modifier=".cg")
                c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))
                tl.store(done_ptr + tile, 0)
        at += k_end - k_first


DONE = {}


def stream_k_matmul(a, b, out, programs, bm, bn, bk, stages, warps):
    M, K = a.shape
    N = b.shape[1]
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    if (a.device, tiles) not in DONE:
        DONE[a.device, tiles] = torch.zeros(tiles, dtype=torch.int32, device=a.device)
    partials = torch.empty(programs * 2 * bm * bn, dtype=torch.float32, device=a.device)
    return stream_k_kernel[(programs,)](a, b, out, partials, DONE[a.device, tiles], M, N, K,
                                        a.stride(0), b.stride(0), out.stride(0),
                                        BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                        GROUP_SIZE_M=8, num_stages=stages, num_warps=warps)


triton.set_allocator(descriptor_scratch)
SMS = torch.cuda.get_device_properties(0).multi_processor_count
print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}, "
      f"{SMS} SMs")
# (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps)
TILES = {
    (16, 4096, 4096): [(16, bn, bk, stages, 4) for bn in (32, 64, 128) for bk in (64, 128)
                       for stages in (4, 6)],
    (1000, 3000, 2000): [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 3, 8),
                         (128, 128, 64, 4, 4), (128, 64, 64, 4, 4)],
}
PROGRAMS = {(16, 4096, 4096): (SMS, 2 * SMS, 4 * SMS), (1000, 3000, 2000): (SMS, 2 * SMS)}
for (M, N, K), tiles in TILES.items():
    time_against_cublas(M, N, K, {
        f"{bm}x{bn}x{bk}, {programs} programs, {stages} stages, {warps} warps":
            lambda a, b, out, c=(programs, bm, bn, bk, stages, warps): stream_k_matmul(a, b, out, *c)
        for (bm, bn, bk, stages, warps), programs in itertools.product(tiles, PROGRAMS[M, N, K])
    })
