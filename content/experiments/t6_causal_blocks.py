"""t6, lesson §7 "Skipping blocks": what the causal loop's early end saves. Runs the reference
(solutions/t6_attention.py) on the CPU interpreter, without and with the causal mask, on one
shape; counts the blocks of keys its programs visit (from the loop's bounds, as the kernel
computes them), times each call, and checks each against torch in float64. On the interpreter,
time follows the work a program does, so the ratio of the two times shows what the skipped
blocks cost; a GPU's ratio is the bench's business (`make bench DRILL=t6`).

Run from the repository root: .venv/bin/python content/experiments/t6_causal_blocks.py
"""

import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # before the kernel is defined

import math
import statistics
import sys
import time

sys.path.insert(0, ".")  # run from the repository root: solutions/ is a folder of it

import torch
import triton

from solutions import t6_attention as reference

BATCH, HEADS, SEQ, HEAD_DIM = 1, 4, 1024, 64
ROUNDS = 5  # the interpreter's times vary from call to call: the median of several


def blocks_visited(causal: bool) -> int:
    """Blocks of keys that all programs visit: each program's loop runs from 0 to end_n."""
    total = 0
    for start_m in range(0, SEQ, reference.BLOCK_M):
        end_n = min(SEQ, start_m + reference.BLOCK_M) if causal else SEQ
        total += triton.cdiv(end_n, reference.BLOCK_N)
    return BATCH * HEADS * total


def torch_attention(q, k, v, causal: bool) -> torch.Tensor:
    s = (q.double() @ k.double().transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    if causal:
        hidden = torch.ones(SEQ, SEQ, dtype=torch.bool).tril().logical_not()
        s = s.masked_fill(hidden, -math.inf)
    return torch.softmax(s, dim=-1) @ v.double()


def main() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(BATCH, HEADS, SEQ, HEAD_DIM, dtype=torch.float16) for _ in range(3))
    print(
        f"torch {torch.__version__}, triton {triton.__version__}, the CPU interpreter; "
        f"{BATCH} x {HEADS} heads x {SEQ} tokens x head_dim {HEAD_DIM}, "
        f"BLOCK_M {reference.BLOCK_M}, BLOCK_N {reference.BLOCK_N}"
    )
    reference.attention(q, k, v)  # the first call pays for setting the interpreter up
    for causal in (False, True):
        seconds = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            out, _ = reference.attention(q, k, v, causal=causal)
            seconds.append(time.perf_counter() - start)
        error = (out.double() - torch_attention(q, k, v, causal)).abs().max().item()
        print(
            f"causal={causal!s:5}: {blocks_visited(causal):5} key blocks visited, "
            f"{statistics.median(seconds):5.2f} s (median of {ROUNDS}; "
            f"{min(seconds):.2f} to {max(seconds):.2f}), largest |out - torch| {error:.1e}"
        )


if __name__ == "__main__":
    main()
