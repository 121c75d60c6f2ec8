"""Correct, written differently: autotune and heuristics applied by calling them, after the
kernel is defined, rather than as decorators: matmul_kernel = triton.autotune(...)(
triton.heuristics(...)(matmul_kernel_body)), as code that builds its kernels (FlagGems, some
generated code) does. The kernel Triton launches is named matmul_kernel_body, and the grader
must read its configs from the call."""

EDITS = [
    (
        '@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n@triton.heuristics({"ALIGN": row_alignment})\n@triton.jit\ndef matmul_kernel(\n',
        "@triton.jit\ndef matmul_kernel_body(\n",
    ),
    (
        "\n\ndef matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None)",
        '\n\nmatmul_kernel = triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])(\n    triton.heuristics({"ALIGN": row_alignment})(matmul_kernel_body)\n)\n\n\ndef matmul(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor | None = None)',
    ),
]
