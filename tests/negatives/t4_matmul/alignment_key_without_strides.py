"""ALIGN is a field of the configs, pruned to the one row_alignment allows, but the autotune
key is tutorial 03's ["M", "N", "K"]: the strides the pruning reads are missing, so a shape
first called with every row stride a multiple of 8 keeps ALIGN=8 from autotune's cache when
called again with the same M, N and K and c's rows 83 apart, and known_multiple rounds that
stride down to 80."""

LOSES = ["strides"]
SAYS = "its row stride were a multiple of 8"
EDITS = [
    (
        "CONFIGS = [INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS\n",
        "CONFIGS = [\n"
        '    triton.Config({**c.kwargs, "ALIGN": align}, num_warps=c.num_warps, '
        "num_stages=c.num_stages)\n"
        "    for c in ([INTERPRETER_CONFIG] if INTERPRETING else GPU_CONFIGS)\n"
        "    for align in (8, 1)\n"
        "]\n",
    ),
    (
        '@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n'
        '@triton.heuristics({"ALIGN": row_alignment})\n',
        "def aligned_configs(configs, named_args, **kwargs):\n"
        '    return [c for c in configs if c.kwargs["ALIGN"] == row_alignment(named_args)]\n'
        "\n\n"
        "@triton.autotune(\n"
        "    configs=CONFIGS,\n"
        '    key=["M", "N", "K"],  # the mistake: the strides the pruning reads are not in it\n'
        '    prune_configs_by={"early_config_prune": aligned_configs},\n'
        ")\n",
    ),
]
