"""matmul_bias_gelu without out= allocates its result in torch's default dtype, fp32, not
fp16: every bias+GELU case that passes out= is right."""

LOSES = ["launches"]
SAYS = "expected a new (100, 70) float16 tensor"
EDITS = [
    (
        "    check_bias(b, bias)\n    return launch(a, b, out, bias=bias.contiguous())\n",
        "    check_bias(b, bias)\n"
        "    if out is None:\n"
        "        out = torch.empty((a.shape[0], b.shape[1]), device=a.device)\n"
        "    return launch(a, b, out, bias=bias.contiguous())\n",
    ),
]
