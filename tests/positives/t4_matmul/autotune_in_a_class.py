"""Correct, written differently: the autotuned kernel kept as a class attribute, made by calling
triton.autotune on the @triton.jit function (Kernels.matmul = triton.autotune(...)(
triton.heuristics(...)(matmul_kernel_body))) and launched as Kernels.matmul[grid](...). The
grader must find the autotuner inside the class, and its configs in the call."""

EDITS = [
    (
        '@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n@triton.heuristics({"ALIGN": row_alignment})\n@triton.jit\ndef matmul_kernel(\n',
        "@triton.jit\ndef matmul_kernel_body(\n",
    ),
    (
        "\n\ndef matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None)",
        '\n\nclass Kernels:\n    matmul = triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])(\n        triton.heuristics({"ALIGN": row_alignment})(matmul_kernel_body)\n    )\n\n\ndef matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None)',
    ),
    ("    matmul_kernel[grid](", "    Kernels.matmul[grid]("),
]
