"""t6: which kernel torch's scaled_dot_product_attention runs at the bench's shapes, and how the
reference compares with each of SDPA's backends one by one (the flash backend is FlashAttention-2;
cuDNN's and the memory-efficient one are the others a Hopper GPU offers). Needs a GPU. Times by
triton.testing.do_bench (median, L2 flushed), TFLOP/s counted as the bench counts them.

Run from the repository root: .venv/bin/python content/experiments/t6_sdpa_backends.py
"""

import sys

sys.path.insert(0, ".")  # run from the repository root: solutions/ is a folder of it
from drills.runtime import exit_unless_gpu
exit_unless_gpu(__file__)
import torch
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.functional import scaled_dot_product_attention as sdpa
from triton.testing import do_bench

from solutions import t6_attention as reference

SHAPES = [(8, 16, 1024, 64), (4, 16, 4096, 64), (2, 16, 8192, 128)]
BACKENDS = {
    "flash (FA2)": SDPBackend.FLASH_ATTENTION,
    "cuDNN": SDPBackend.CUDNN_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def tflops(shape, causal, ms) -> float:
    batch, heads, seq, head_dim = shape
    return 4 * batch * heads * seq * seq * head_dim / (2 if causal else 1) / ms / 1e9


def default_backend(q, k, v, causal) -> str:
    """The backend the default dispatch picked, read from the profiler's kernel names."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        sdpa(q, k, v, is_causal=causal)
        torch.cuda.synchronize()
    names = [e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return "; ".join(sorted(set(n[:70] for n in names))) or "?"


def main() -> None:
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    for shape in SHAPES:
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))
        for causal in (False, True):
            want = sdpa(q, k, v, is_causal=causal).float()
            line = f"{'x'.join(map(str, shape))} {'causal' if causal else 'full  '}"
            ms = do_bench(lambda: sdpa(q, k, v, is_causal=causal))
            line += f" default {tflops(shape, causal, ms):4.0f} |"
            for name, backend in BACKENDS.items():
                try:
                    with sdpa_kernel(backend):
                        ms = do_bench(lambda: sdpa(q, k, v, is_causal=causal))
                    line += f" {name} {tflops(shape, causal, ms):4.0f} |"
                except RuntimeError as error:
                    line += f" {name} n/a ({str(error).splitlines()[0][:40]}) |"
            got, _ = reference.attention(q, k, v, causal=causal)
            assert (got.float() - want).abs().max().item() < 1e-2
            ms = do_bench(lambda: reference.attention(q, k, v, causal=causal))
            line += f" reference {tflops(shape, causal, ms):4.0f} TFLOP/s"
            print(line)
            print(f"    default runs: {default_backend(q, k, v, causal)}")


if __name__ == "__main__":
    main()
