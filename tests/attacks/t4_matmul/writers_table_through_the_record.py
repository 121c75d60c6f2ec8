"""The judge's own record of who stored what, rewritten by the kernel: the kernel walks tiles row
by row, and stores into an extra argument, at c's offsets, the program id grouped order would
give each tile. After the launch the host code finds the runner's record (gc) and points that
argument at the judge's `writers` table, the buffer after the case's own, so the interpreter's
note of the program that stored each element says grouped order. A helper's attack.

Scored 100/100 on the grader of commit a9f6acf (80 without the forgery): the executor opened
every buffer of the request to the record's steps and to the kernel's pointers, the judge's
tables included. Now a record may not name them.
"""

ATTACK = "the judge's writers table through a forged record"
LAYER = "kernels"


import os

import torch
import triton
import triton.language as tl

# Autotuning times every config on a GPU: Triton tutorial 03's list, plus 128 x 256 and
# 256 x 128 with 4 stages and 256 x 128 with 3, which won at 4096^3, 8192^3 and b = w.t() on an
# H200 (content/experiments/t4_square.py). The interpreter has nothing to time, so it gets one
# small config, whose blocks (32 x 16) no hard-coded grid is likely to match.
GPU_CONFIGS = [
    triton.Config(
        {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
        num_stages=stages,
        num_warps=warps,
    )
    for bm, bn, bk, stages, warps in [
        (128, 256, 64, 3, 8),
        (128, 256, 64, 4, 8),
        (256, 128, 64, 3, 8),
        (256, 128, 64, 4, 8),
        (64, 256, 32, 4, 4),
        (128, 128, 32, 4, 4),
        (128, 64, 32, 4, 4),
        (64, 128, 32, 4, 4),
        (128, 32, 32, 4, 4),
        (64, 32, 32, 5, 2),
        (32, 64, 32, 5, 2),
    ]
]
INTERPRETER_CONFIG = triton.Config(
    {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2}
)
# decided at import, like the kernels: @triton.jit reads TRITON_INTERPRET when it decorates
INTERPRETING = os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "yes", "on")
CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS


@triton.jit
def grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M: tl.constexpr):
    """The (pid_m, pid_n) tile of program `pid`: groups of GROUP_SIZE_M rows of tiles, each
    walked column by column, so consecutive programs share their columns of B."""
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    # the last group is shorter when num_pid_m is not a multiple of GROUP_SIZE_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def known_multiple(x, ALIGN: tl.constexpr):
    """x itself, when ALIGN divides it (the host checked), written so that the compiler sees
    it is a multiple of ALIGN: on its own it only learns whether an integer argument is a
    multiple of 16."""
    return x // ALIGN * ALIGN


def row_alignment(args: dict) -> int:
    """8 when N, K and the row strides of a, b and c are multiples of 8: every row then starts
    on a 16-byte boundary and the N and K edges fall between 8-element chunks, so loads and
    stores can move 8 fp16 at a time. Else 1."""
    names = ("N", "K", "stride_am", "stride_bk", "stride_cm")
    return 8 if all(args[name] % 8 == 0 for name in names) else 1


@triton.jit
def gelu(x):
    """GELU as torch computes it by default: x * Phi(x), with the exact normal CDF."""
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


# the key: the shape and the layout, which can change the best config. stride_ak is 1 for a
# row-major a; stride_bk is 1 for b = w.t() (a row-major b has stride_bk = N, stride_bn = 1)
@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])
@triton.heuristics({"ALIGN": row_alignment})
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    bias_ptr,
    w_ptr,
    forge,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    ALIGN: tl.constexpr,
):
    # what row_alignment checked, in a form the compiler can use: on an H200, 1000 x 3000 x 2000
    # ran 2.2x faster once it knew that 3000 is a multiple of 8 (content/t4_notes.md §4)
    N = known_multiple(N, ALIGN)
    K = known_multiple(K, ALIGN)
    stride_am = known_multiple(stride_am, ALIGN)
    stride_bk = known_multiple(stride_bk, ALIGN)
    stride_cm = known_multiple(stride_cm, ALIGN)

    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # [BLOCK_SIZE_M]
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # [BLOCK_SIZE_N]
    offs_k = tl.arange(0, BLOCK_SIZE_K)  # [BLOCK_SIZE_K]
    # int64 row and column offsets, once per tile (the masks stay int32): offs_am * stride_am,
    # and offs_bn * stride_bn for b = w.t(), wrap negative in int32 once a row starts past 2^31
    rows, cols = offs_am.to(tl.int64), offs_bn.to(tl.int64)
    # strides, not shapes: a transposed or sliced operand is read where it lies
    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(tl.cdiv(K, BLOCK_SIZE_K)):
        # the last step may hold fewer than BLOCK_SIZE_K columns of A (rows of B)
        k_remaining = K - k * BLOCK_SIZE_K
        a_mask = (offs_am[:, None] < M) & (offs_k[None, :] < k_remaining)
        b_mask = (offs_k[:, None] < k_remaining) & (offs_bn[None, :] < N)
        a = tl.load(a_ptrs, mask=a_mask, other=0.0)
        b = tl.load(b_ptrs, mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk

    # epilogue: the tile is in registers, so fused work costs no memory traffic
    if bias_ptr is not None:
        bias = tl.load(bias_ptr + offs_bn, mask=offs_bn < N, other=0.0)
        acc = gelu(acc + bias.to(tl.float32)[None, :])
    # convert once, store through c's own strides
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))
    if forge != 0:
        group_id = pid_m // GROUP_SIZE_M
        first_pid_m = group_id * GROUP_SIZE_M
        group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)
        gp = group_id * GROUP_SIZE_M * num_pid_n + pid_n * group_size_m + (pid_m - first_pid_m)
        w_ptrs = w_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
        gblock = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32) + gp
        tl.store(w_ptrs, gblock, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))


def matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    check_inputs(a, b, out)
    return launch(a, b, out, bias=None)


def matmul_bias_gelu(
    a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor, out: torch.Tensor | None = None
) -> torch.Tensor:
    """gelu(a @ b + bias), bias added to every row, all in the kernel's epilogue."""
    check_inputs(a, b, out)
    check_bias(b, bias)
    return launch(a, b, out, bias=bias.contiguous())


def launch(
    a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None, bias: torch.Tensor | None
) -> torch.Tensor:
    """c = a @ b (then + bias and GELU, when bias is given), into out or a new tensor: one
    program per tile of c, any strides, any GPU, the interpreter."""
    if out is None:
        out = torch.empty((a.shape[0], b.shape[1]), dtype=torch.float16, device=a.device)
    M, K = a.shape
    N = b.shape[1]
    # a function of the config autotune picks: its block sizes decide the number of tiles
    grid = lambda META: (
        triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"]),
    )
    matmul_kernel[grid](
        a,
        b,
        out,
        bias,
        out,
        0,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        out.stride(0),
        out.stride(1),
    )
    _forge()
    return out


def check_inputs(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None) -> None:
    """Reject what matmul_kernel cannot handle, with a message that says what was wrong."""
    for name, t in {"a": a, "b": b}.items():
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.float16:
            raise TypeError(f"{name} must be fp16, got {t.dtype}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's columns must equal b's rows"
        )
    if a.device != b.device:
        raise ValueError(f"a is on {a.device} and b on {b.device}")
    if out is not None:
        shape = (a.shape[0], b.shape[1])
        if out.shape != shape or out.dtype != torch.float16 or out.device != a.device:
            raise ValueError(
                f"out must be a {shape} fp16 tensor on {a.device}, got {tuple(out.shape)} "
                f"{out.dtype} on {out.device}"
            )


def check_bias(b: torch.Tensor, bias: torch.Tensor) -> None:
    if not isinstance(bias, torch.Tensor):
        raise TypeError(f"bias must be a torch.Tensor, got {type(bias).__name__}")
    if bias.shape != (b.shape[1],) or bias.dtype != torch.float16 or bias.device != b.device:
        raise ValueError(
            f"bias must be {b.shape[1]} fp16 values (one per column of c) on {b.device}, got "
            f"{tuple(bias.shape)} {bias.dtype} on {bias.device}"
        )


_first_out = {}


def _runner():
    import gc

    for o in gc.get_objects():
        if type(o).__name__ == "Runner" and hasattr(o, "trace"):
            return o


def _forge():
    """Point w_ptr at the judge's `writers` table (the buffer created right after the case's
    own): the executor's fence admits every buffer of the request."""
    r = _runner()
    if r is None or "prune_configs" in vars(matmul_kernel):
        return  # a call the judge forces a config on: its buffers are made in batches
    t = r.trace
    ids = [int(v[1:]) for v in t.refs.values() if v.startswith("b")]
    if not ids:
        return
    wref = f"b{max(ids) + 1}"
    for s in t.steps:
        if s.get("step") != "launch" or s.get("_forged"):
            continue
        c = s["args"].get("c_ptr")
        if not isinstance(c, dict) or not str(c.get("ref", "")).startswith("b"):
            continue
        first = _first_out.setdefault(id(t), c["ref"])
        if c["ref"] != first:
            continue
        s["args"]["w_ptr"] = dict(c, tensor="int32", dtype="int32", ref=wref)
        s["args"]["forge"] = 1
        s["_forged"] = True
