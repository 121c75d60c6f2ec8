"""t4, notes "Odd and skinny shapes": at 1000x3000x2000 the benchmark's T4 reference (the
persistent kernel of solutions/t4_matmul_persistent.py) stays near 0.70x cuBLAS on an H100:
128x256 tiles make 96 tiles for 132 SMs, and split K, one stream-K kernel (which spilled 40
registers) and smaller tiles all lost (t4_split_k.out, t4_stream_k.out, t4_wave_tiles.out). Do
Hopper's warp specialization, or a stream-K in two kernels with no atomics, close the gap? Needs
a Hopper GPU (tensor descriptors, and the warp-specialization pass is Hopper's). Output:
t4_warp_specialized.out.

First, the name of the kernel torch.matmul launches at 1000x3000x2000 (torch.profiler): cuBLAS's
kernel names tell its tile shape and whether it splits K (splitK, streamk).

C. The persistent kernel, copied (the module's kernel takes no loop options), with its K loop as
   tl.range(..., warp_specialize=WS). On sm_90 triton 3.6 warp-specializes a loop only with
   num_warps=4, num_stages > 1 and no runtime if/else (one with an else block) in the kernel; it
   makes a producer warp group that issues the TMA loads and two consumer groups that each
   compute half of the tile. With WS the tile loop drops flatten=True, which the pass does not
   take on Hopper. Each variant's first line says whether the pass fired: the
   ttg.warp_specialize op in its TTGIR.
A. Stream-K in two launches, timed together. Kernel 1, one program per SM, deals the
   (tile, K block) pairs out evenly (program p takes [p * W // P, (p + 1) * W // P) of the W
   pairs); a program's segment that covers a whole tile's K stores fp16 to c, one that covers
   part of it stores its fp32 sum to the workspace slot ws[tile, part] (part: the program's
   place among those that share the tile). Kernel 2 adds the slots of each shared tile and
   writes it. No atomics and no waiting, and no if/else, so that the same kernel can be warp
   specialized: a tile's fp16 store sits in an `if` with no else, and the fp32 store is masked.
   Run with 8 warps, and warp specialized (4 warps) on its K loop.

Every variant is checked against float64 before it is timed, beside cuBLAS and the persistent
reference as `make bench` runs it, by t4_split_k.py's time_against_cublas (its TFLOP/s, by
do_bench and from a CUDA graph, and the ratio to cuBLAS). Each kernel prints its registers,
spills, shared memory, warps and whether it was warp specialized once, when it first compiles;
a compile failure or a wrong result prints one line and the script goes on. 4096^3 is a sanity
row, with fewer variants.

Run from the repository root: .venv/bin/python content/experiments/t4_warp_specialized.py
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


@triton.jit
def descriptors(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr):
    """a, b (row-major) and c by tiles, as the reference describes them."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1],
                                       block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    return a_desc, b_desc, c_desc


@triton.jit
def persistent_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                      NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                      BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                      WS: tl.constexpr, FLATTEN: tl.constexpr):
    """matmul_persistent_kernel for a row-major b and no bias, with loop options to choose."""
    a_desc, b_desc, c_desc = descriptors(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk,
                                         stride_cm, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), warp_specialize=WS):
            a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))


@triton.jit
def owner(pair, programs, work):
    """The program whose share [p * work // programs, (p + 1) * work // programs) holds `pair`:
    the largest p with p * work // programs <= pair."""
    return ((pair + 1) * programs - 1) // work


@triton.jit
def stream_k_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                    MAX_PARTS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                    BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, WS: tl.constexpr):
    """Kernel 1 of stream-K: this program's share of the (tile, K block) pairs, tile by tile."""
    a_desc, b_desc, c_desc = descriptors(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk,
                                         stride_cm, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_blocks = tl.cdiv(K, BLOCK_SIZE_K)
    work = num_pid_m * num_pid_n * k_blocks
    programs = tl.num_programs(axis=0)  # at most `work` (the host sees to it): no empty share
    pid = tl.program_id(axis=0)
    start = pid * work // programs
    end = (pid + 1) * work // programs
    in_tile = (tl.arange(0, BLOCK_SIZE_M)[:, None] * BLOCK_SIZE_N
               + tl.arange(0, BLOCK_SIZE_N)[None, :])
    # the tiles the share touches, first and last perhaps in part (t4_stream_k.py walked
    # segments in a while loop)
    for tile in range(start // k_blocks, (end - 1) // k_blocks + 1):
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        k_first = tl.maximum(start - tile * k_blocks, 0)
        k_end = tl.minimum(end - tile * k_blocks, k_blocks)
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in tl.range(k_first, k_end, warp_specialize=WS):
            a = a_desc.load([pid_m * BLOCK_SIZE_M, k * BLOCK_SIZE_K])
            b = b_desc.load([k * BLOCK_SIZE_K, pid_n * BLOCK_SIZE_N])
            acc = tl.dot(a, b, acc)
        # the fp32 store is masked, not under `if not whole`: MLIR's canonicalizer merges an
        # `if c` followed by an `if not c` into one if/else, and an else stops the pass
        whole = k_end - k_first == k_blocks
        shared = k_end - k_first < k_blocks
        if whole:  # no else: the tile is this program's alone
            c_desc.store([pid_m * BLOCK_SIZE_M, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))
        slot = tile * MAX_PARTS + pid - owner(tile * k_blocks, programs, work)
        tl.store(ws_ptr + slot.to(tl.int64) * (BLOCK_SIZE_M * BLOCK_SIZE_N) + in_tile, acc,
                 mask=shared)


@triton.jit
def stream_k_fixup_kernel(ws_ptr, c_ptr, M, N, K, stride_cm, programs,
                          MAX_PARTS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                          BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, ROWS: tl.constexpr):
    """Kernel 2 of stream-K: ROWS rows of one tile, the sum of its slots where it was shared
    (a tile one program covered is already in c)."""
    tile = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_blocks = tl.cdiv(K, BLOCK_SIZE_K)
    work = num_pid_m * num_pid_n * k_blocks
    parts = (owner(tile * k_blocks + k_blocks - 1, programs, work)
             - owner(tile * k_blocks, programs, work) + 1)
    if parts > 1:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1],
                                           block_shape=[ROWS, BLOCK_SIZE_N])
        rows = tl.program_id(axis=1) * ROWS
        in_tile = ((rows + tl.arange(0, ROWS))[:, None] * BLOCK_SIZE_N
                   + tl.arange(0, BLOCK_SIZE_N)[None, :])
        acc = tl.zeros((ROWS, BLOCK_SIZE_N), dtype=tl.float32)
        for part in range(0, parts):
            slot = (tile * MAX_PARTS + part).to(tl.int64)
            acc += tl.load(ws_ptr + slot * (BLOCK_SIZE_M * BLOCK_SIZE_N) + in_tile)
        pid_m, pid_n = grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        c_desc.store([pid_m * BLOCK_SIZE_M + rows, pid_n * BLOCK_SIZE_N], acc.to(tl.float16))


def share_owner(pair, programs, work):
    """owner, on the host."""
    return ((pair + 1) * programs - 1) // work


def stream_k_parts(tiles, k_blocks, programs):
    """The most programs that share one tile: the workspace's slots per tile."""
    work = tiles * k_blocks
    return max(share_owner(t * k_blocks + k_blocks - 1, programs, work)
               - share_owner(t * k_blocks, programs, work) + 1 for t in range(tiles))


def warp_specialized(compiled):
    """Whether the pass split the kernel into warp groups: its ttg.warp_specialize op in the
    TTGIR. Not the bare word "warp_specialize", which the TTGIR always holds here (this file's
    name is in its source locations); the loop's attribute, tt.warp_specialize, is gone once
    the pass has run."""
    return "ttg.warp_specialize(" in compiled.asm["ttgir"]


class Launch:
    """A kernel's launches with one config: the first through the JIT (it compiles, and prints
    the kernel's registers, spills and warp specialization), the next ones of the compiled
    kernel directly, as the reference's launch_compiled does, for host time close to cuBLAS's
    (the JIT's binding costs more than these kernels take)."""

    def __init__(self, name, kernel, grid, constexprs, options):
        self.name, self.kernel, self.grid = name, kernel, grid + (1,) * (3 - len(grid))
        self.constexprs, self.options, self.compiled = constexprs, options, None

    def __call__(self, *args):
        if self.compiled is not None:
            self.compiled[self.grid](*args, *self.ordered)
            return self.compiled
        compiled = self.kernel[self.grid](*args, **self.constexprs, **self.options)
        self.ordered = [self.constexprs[name] for name in self.kernel.arg_names[len(args):]]
        self.compiled = compiled
        print(f"  {self.name}: {compiled.n_regs} registers, {compiled.n_spills} spills, "
              f"{compiled.metadata.shared} bytes of shared memory, {compiled.metadata.num_warps} "
              f"warps, warp specialized: {warp_specialized(compiled)}", flush=True)
        return compiled


def persistent(sms, M, N, bm, bn, bk, stages, warps, ws):
    """Variant C's launch(a, b, out): one program per SM, at most one per tile."""
    grid = (min(sms, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
    launch = Launch(f"C {bm}x{bn}x{bk}, WS {ws}", persistent_kernel, grid,
                    dict(NUM_SMS=grid[0], BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                         GROUP_SIZE_M=8, WS=ws, FLATTEN=not ws),
                    dict(num_stages=stages, num_warps=warps))
    return lambda a, b, out: launch(a, b, out, a.shape[0], b.shape[1], a.shape[1],
                                    a.stride(0), b.stride(0), out.stride(0))


FIXUP_ROWS = 32  # kernel 2's rows of a tile per program: 4 programs per 128-row tile


def stream_k(sms, M, N, K, bm, bn, bk, stages, warps, ws):
    """Variant A's launch(a, b, out): both kernels, one after the other on the stream."""
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    k_blocks = triton.cdiv(K, bk)
    programs = min(sms, tiles * k_blocks)
    parts = stream_k_parts(tiles, k_blocks, programs)
    workspace = {}  # allocated at the first call, on the GPU the call runs on
    named = dict(MAX_PARTS=parts, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                 GROUP_SIZE_M=8)
    first = Launch(f"A kernel 1 {bm}x{bn}x{bk}, WS {ws}, {programs} programs, up to {parts} "
                   "per tile", stream_k_kernel, (programs,), dict(named, WS=ws),
                   dict(num_stages=stages, num_warps=warps))
    second = Launch(f"A kernel 2 {bm}x{bn}", stream_k_fixup_kernel, (tiles, bm // FIXUP_ROWS),
                    dict(named, ROWS=FIXUP_ROWS), dict(num_warps=4))

    def launch(a, b, out):
        if "ws" not in workspace:
            workspace["ws"] = torch.empty(tiles * parts * bm * bn, dtype=torch.float32,
                                          device=a.device)
        compiled = first(a, b, out, workspace["ws"], M, N, K, a.stride(0), b.stride(0),
                         out.stride(0))
        second(workspace["ws"], out, M, N, K, out.stride(0), programs)
        return compiled  # its spills are the ones the table shows
    return launch


def cublas_kernel_names(M, N, K):
    """The GPU kernels torch.matmul launches for an fp16 [M, K] x [K, N] product."""
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    a @ b  # cuBLAS's first call picks its kernel and loads it: outside the profile
    torch.cuda.synchronize()
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as profile:
        for _ in range(3):
            a @ b
        torch.cuda.synchronize()
    cuda = torch.autograd.DeviceType.CUDA
    return sorted({event.key for event in profile.key_averages() if event.device_type == cuda})


if __name__ == "__main__":
    triton.set_allocator(descriptor_scratch)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"torch {torch.__version__} triton {triton.__version__} {torch.cuda.get_device_name()}, "
          f"{sms} SMs")
    try:
        names = cublas_kernel_names(1000, 3000, 2000)
        print("torch.matmul at 1000x3000x2000 launches: " + "; ".join(names))
    except Exception as e:  # the profiler is not there, say: the timings still run
        print(f"torch.profiler: {type(e).__name__}: {str(e)[:200]}")

    # Shared memory, from triton 3.6's sm_90 compile of these kernels (an H100 or H200 block
    # may have 232448 bytes): 128x256x64 with 3 stages takes 213016 (C and A, 8 warps) and
    # 213464 (C, warp specialized); with 4 stages 262176 and 262632, so C leaves it out. The
    # warp-specialized A takes 64 KB more than C (279000 at 3 stages): each consumer group
    # passes its fp32 sum through shared memory on its way to the workspace. It runs 128x256
    # with 2 stages of 64 (229752) or 4 of 32 (229864), and 128x128x64 with 4 (197096).
    # Without WS the reference's 8 warps, with it 4 (the pass's condition: a producer group
    # and two consumer groups of 4 warps, 12 in all).
    M, N, K = 1000, 3000, 2000
    variants = {}
    # (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages)
    for bm, bn, bk, stages in [(128, 256, 64, 3), (128, 128, 64, 3), (128, 128, 64, 4)]:
        for ws in (False, True):
            warps = 4 if ws else 8
            variants[f"C {bm}x{bn}x{bk}, {stages} stages, {warps} warps, WS {ws}"] = \
                persistent(sms, M, N, bm, bn, bk, stages, warps, ws)
    # (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_stages, num_warps, WS)
    for bm, bn, bk, stages, warps, ws in [(128, 256, 64, 3, 8, False), (128, 256, 64, 2, 4, True),
                                          (128, 256, 32, 4, 4, True), (128, 128, 64, 4, 4, True)]:
        variants[f"A stream-K {bm}x{bn}x{bk}, {stages} stages, {warps} warps, WS {ws}"] = \
            stream_k(sms, M, N, K, bm, bn, bk, stages, warps, ws)
    time_against_cublas(M, N, K, variants)

    # the sanity row: a shape where the reference is near cuBLAS already
    M = N = K = 4096
    variants = {}
    for bm, bn, bk, stages, warps, ws in [(128, 256, 64, 3, 8, False), (128, 256, 64, 3, 4, True),
                                          (128, 128, 64, 4, 4, True)]:
        variants[f"C {bm}x{bn}x{bk}, {stages} stages, {warps} warps, WS {ws}"] = \
            persistent(sms, M, N, bm, bn, bk, stages, warps, ws)
    for bm, bn, bk, stages, warps, ws in [(128, 256, 64, 3, 8, False), (128, 256, 64, 2, 4, True)]:
        variants[f"A stream-K {bm}x{bn}x{bk}, {stages} stages, {warps} warps, WS {ws}"] = \
            stream_k(sms, M, N, K, bm, bn, bk, stages, warps, ws)
    time_against_cublas(M, N, K, variants)
