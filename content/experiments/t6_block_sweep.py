"""t6: how far the reference's blocks (BLOCK_M = BLOCK_N = 64, 4 warps, triton's default
stages) are from the best of a few others, beside torch's scaled_dot_product_attention, at the
bench's shapes. Needs a GPU. Each config is the reference's kernel launched with other
constexprs and options; a config the GPU cannot load (shared memory) is reported as such.

Run from the repository root: .venv/bin/python content/experiments/t6_block_sweep.py
"""

import math
import sys

sys.path.insert(0, ".")  # run from the repository root: solutions/ is a folder of it
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch
import triton
from triton.testing import do_bench

from solutions import t6_attention as reference

SHAPES = [(8, 16, 1024, 64), (4, 16, 4096, 64), (2, 16, 8192, 128)]
# (BLOCK_M, BLOCK_N, num_warps, num_stages); the first is the reference's own
CONFIGS = [(64, 64, 4, None), (64, 64, 4, 3), (128, 64, 4, 3), (128, 64, 8, 3), (128, 32, 4, 3)]
CONFIGS += [(128, 64, 8, 2)]


def launch(q, k, v, out, lse, causal, block_m, block_n, warps, stages):
    batch, heads, seq, head_dim = q.shape
    options = {"num_warps": warps} | ({} if stages is None else {"num_stages": stages})
    reference.attention_kernel[(triton.cdiv(seq, block_m), batch * heads)](
        q, k, v, out, lse, *q.stride()[:3], *k.stride()[:3], *v.stride()[:3],
        *out.stride()[:3], *lse.stride()[:2], heads, seq, seq, head_dim,
        reference.LOG2_E / math.sqrt(head_dim), CAUSAL=causal, BLOCK_M=block_m,
        BLOCK_N=block_n, BLOCK_D=max(16, triton.next_power_of_2(head_dim)), **options,
    )  # fmt: skip


def tflops(shape, causal, ms) -> float:
    batch, heads, seq, head_dim = shape
    return 4 * batch * heads * seq * seq * head_dim / (2 if causal else 1) / ms / 1e9


def main() -> None:
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    for shape in SHAPES:
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
        out = torch.empty_like(q)
        lse = torch.empty(shape[:3], device="cuda", dtype=torch.float32)
        for causal in (False, True):
            sdpa = torch.nn.functional.scaled_dot_product_attention
            torch_ms = do_bench(lambda: sdpa(q, k, v, is_causal=causal))
            want = sdpa(q, k, v, is_causal=causal)
            line = f"{'x'.join(map(str, shape))} {'causal' if causal else 'full  '}"
            line += f" SDPA {tflops(shape, causal, torch_ms):4.0f} TFLOP/s |"
            for config in CONFIGS:
                try:
                    run = lambda: launch(q, k, v, out, lse, causal, *config)  # noqa: E731
                    run()
                    ok = (out.float() - want.float()).abs().max().item() < 1e-2
                    ms = do_bench(run)
                    line += f" {tflops(shape, causal, ms):4.0f}{'' if ok else '(wrong)'}"
                except triton.runtime.errors.OutOfResources:
                    line += "  OOR"
            print(line)
    print("configs (BLOCK_M, BLOCK_N, warps, stages):", CONFIGS)


if __name__ == "__main__":
    main()
