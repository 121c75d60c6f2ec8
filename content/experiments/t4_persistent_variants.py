"""t4, notes §4: where the host time of a matmul call goes, and what four variants of the
persistent kernel gain over it. Needs a GPU. This is the script, as it ran, behind the numbers in
content/t4_notes.md; it ran against solutions/ at commit cca7c5a, when matmul in
t4_matmul_persistent.py ran the persistent kernel for b = w.t() only and had no cached launch.

Part 1, per call (us, 3000 calls, synchronised once): cuBLAS through torch; the two references'
matmul; their input checks; the autotuned kernel launched through the autotuner; the same
kernel through the JIT with the chosen config; the compiled kernel launched with its grid
(CompiledKernel[grid]) and through its launcher (CompiledKernel.run).

Part 2, TFLOP/s by do_bench / by do_bench_cudagraph: cuBLAS, the drill's kernel, the persistent
module's launch; then a copy of the persistent kernel forced to six configs, in five variants:
as in the module (flatten=True), flatten=False, the epilogue stored in two halves of c's tile
(SUBTILE: half the shared memory for c, so 128 x 256 fits 4 stages), warp specialization
(tl.range(..., warp_specialize=True)), and both. A config that does not load prints
OutOfResources; RuntimeError is a compile failure (the warp-specialization pass, printed to
stderr).

Run from the repository root: python3 content/experiments/t4_persistent_variants.py [seconds]
"""
import sys, time
sys.path.insert(0, ".")
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch, triton, triton.language as tl
from triton.testing import do_bench, do_bench_cudagraph
from solutions import t4_matmul as drill
from solutions import t4_matmul_persistent as pers



def per_call_us(fn, calls=3000):
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def host_breakdown():
    for M, N, K in [(16, 64, 64), (16, 4096, 4096)]:
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        drill.matmul(a, b, c)
        pers.matmul(a, b, c)
        cfg = drill.matmul_kernel.best_config
        grid_fn = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),)
        grid = grid_fn(cfg.kwargs) + (1, 1)
        args = (a, b, c, None, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        compiled = drill.matmul_kernel[grid_fn](*args)
        align = drill.row_alignment(dict(N=N, K=K, stride_am=a.stride(0), stride_bk=b.stride(0), stride_cm=c.stride(0)))
        consts = [cfg.kwargs[k] for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")] + [align]
        jit = drill.matmul_kernel.fn.fn
        expected = torch.matmul(a, b)
        c.zero_()
        compiled[grid](*args, *consts)
        torch.cuda.synchronize()
        ok = torch.allclose(c, expected, atol=0.5, rtol=0.02)
        dev = torch.cuda.current_device()
        stream = torch.cuda.current_stream().cuda_stream
        entries = {
            "torch.matmul(out=)": lambda: torch.matmul(a, b, out=c),
            "torch.empty": lambda: torch.empty((M, N), dtype=torch.float16, device=a.device),
            "drill.matmul(out=)": lambda: drill.matmul(a, b, c),
            "drill.matmul()": lambda: drill.matmul(a, b),
            "pers.matmul(out=)": lambda: pers.matmul(a, b, c),
            "check_inputs": lambda: drill.check_inputs(a, b, c),
            "autotuned kernel[grid]": lambda: drill.matmul_kernel[grid_fn](*args),
            "jit[grid](config)": lambda: jit[grid](*args, **cfg.all_kwargs(), ALIGN=align),
            "compiled[grid]": lambda: compiled[grid](*args, *consts),
            "compiled.run": lambda: compiled.run(grid[0], 1, 1, stream, compiled.function, compiled.packed_metadata, None, None, None, *args, *consts),
        }
        print(f"host {M}x{N}x{K}: compiled[grid] correct={ok}", flush=True)
        for name, fn in entries.items():
            print(f"  {name:24s} {per_call_us(fn):6.1f} us", flush=True)


@triton.jit
def persistent_variant(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_b, stride_cm,
                       B_KMAJOR: tl.constexpr, NUM_SMS: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                       BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                       WS: tl.constexpr, SUBTILE: tl.constexpr, FLATTEN: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_b, 1], block_shape=[BLOCK_SIZE_K, BLOCK_SIZE_N])
    if SUBTILE:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N // 2])
    else:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    for tile in tl.range(tl.program_id(axis=0), num_pid_m * num_pid_n, NUM_SMS, flatten=FLATTEN, warp_specialize=WS):
        pid_m, pid_n = drill.grouped_tile(tile, num_pid_m, num_pid_n, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
            a = a_desc.load([offs_am, k * BLOCK_SIZE_K])
            if B_KMAJOR:
                b = b_desc.load([offs_bn, k * BLOCK_SIZE_K]).T
            else:
                b = b_desc.load([k * BLOCK_SIZE_K, offs_bn])
            acc = tl.dot(a, b, acc)
        if SUBTILE:
            acc = tl.reshape(acc, (BLOCK_SIZE_M, 2, BLOCK_SIZE_N // 2))
            acc = tl.permute(acc, (0, 2, 1))
            acc0, acc1 = tl.split(acc)
            c_desc.store([offs_am, offs_bn], acc0.to(tl.float16))
            c_desc.store([offs_am, offs_bn + BLOCK_SIZE_N // 2], acc1.to(tl.float16))
        else:
            c_desc.store([offs_am, offs_bn], acc.to(tl.float16))


NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count
CONFIGS = [(128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8), (128, 128, 64, 5, 8), (128, 128, 64, 4, 4), (128, 256, 64, 4, 8)]
VARIANTS = {"base": dict(WS=False, SUBTILE=False, FLATTEN=True), "noflat": dict(WS=False, SUBTILE=False, FLATTEN=False),
            "subtile": dict(WS=False, SUBTILE=True, FLATTEN=True), "ws": dict(WS=True, SUBTILE=False, FLATTEN=False),
            "ws+subtile": dict(WS=True, SUBTILE=True, FLATTEN=False)}


def kernel_sweep(deadline):
    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    for M, N, K, b_t in [(4096, 4096, 4096, False), (8192, 1024, 8192, False), (4096, 4096, 512, False), (1000, 3000, 2000, False),
                         (8192, 8192, 8192, False), (4096, 4096, 4096, True)]:
        if time.time() > deadline:
            print("deadline", flush=True)
            return
        torch.manual_seed(0)
        a = torch.randn(M, K, device="cuda", dtype=torch.float16)
        b = torch.randn(N, K, device="cuda", dtype=torch.float16).t() if b_t else torch.randn(K, N, device="cuda", dtype=torch.float16)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        expected = torch.matmul(a, b)
        tf = lambda fn: 2 * M * N * K / do_bench(fn, return_mode="median") / 1e9
        tfg = lambda fn: 2 * M * N * K / do_bench_cudagraph(fn, return_mode="median") / 1e9
        cublas0 = tf(lambda: torch.matmul(a, b, out=c)); cublas0g = tfg(lambda: torch.matmul(a, b, out=c))
        drill_tf = tf(lambda: drill.launch(a, b, c, None)); drill_g = tfg(lambda: drill.launch(a, b, c, None))
        pers_tf = tf(lambda: pers.launch(a, b, c, None)); pers_g = tfg(lambda: pers.launch(a, b, c, None))
        print(f"{M}x{N}x{K}{' w.t()' if b_t else ''}: cuBLAS {cublas0:.0f} (graph {cublas0g:.0f}) drill {drill_tf:.0f} (graph {drill_g:.0f}) pers.launch {pers_tf:.0f} (graph {pers_g:.0f})", flush=True)
        stride_b = b.stride(1) if b_t else b.stride(0)
        for vname, v in VARIANTS.items():
            results = []
            for bm, bn, bk, st, w in CONFIGS:
                grid = (min(NUM_SMS, triton.cdiv(M, bm) * triton.cdiv(N, bn)),)
                run = lambda: persistent_variant[grid](a, b, c, M, N, K, a.stride(0), stride_b, c.stride(0), b_t, NUM_SMS,
                                                       bm, bn, bk, 8, **v, num_stages=st, num_warps=w)
                try:
                    c.zero_()
                    run()
                    torch.cuda.synchronize()
                    if not torch.allclose(c, expected, atol=1, rtol=0.02):
                        results.append(f"{bm}x{bn}s{st}w{w}:WRONG")
                        continue
                    results.append(f"{bm}x{bn}s{st}w{w}:{tf(run):.0f}/{tfg(run):.0f}")
                except Exception as e:
                    results.append(f"{bm}x{bn}s{st}w{w}:{type(e).__name__}")
            print(f"  {vname:11s} " + " ".join(results), flush=True)
        print(f"  cuBLAS after {tf(lambda: torch.matmul(a, b, out=c)):.0f} (graph {tfg(lambda: torch.matmul(a, b, out=c)):.0f})", flush=True)


if __name__ == "__main__":
    host_breakdown()
    kernel_sweep(time.time() + float(sys.argv[1] if len(sys.argv) > 1 else 400))
