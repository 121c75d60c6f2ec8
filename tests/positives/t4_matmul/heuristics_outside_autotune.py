"""Correct, written differently: @triton.heuristics stacked outside @triton.autotune, the order
FLA's kernels use (both orders are legal: the heuristic here reads only the shape and the
strides, which it has before a config is chosen). The kernel object the module holds is then a
Heuristics wrapping the Autotuner, and the grader must find the configs through it."""

EDITS = [
    (
        '@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n@triton.heuristics({"ALIGN": row_alignment})\n',
        '@triton.heuristics({"ALIGN": row_alignment})\n@triton.autotune(configs=CONFIGS, key=["M", "N", "K", "stride_ak", "stride_bk"])\n',
    ),
    (
        "    # int64 row and column offsets, once per tile (the masks stay int32): offs_am * stride_am,\n    # and offs_bn * stride_bn for b = w.t(), wrap negative in int32 once a row starts past 2^31\n    rows, cols = offs_am.to(tl.int64), offs_bn.to(tl.int64)\n    # strides, not shapes: a transposed or sliced operand is read where it lies\n    a_ptrs = a_ptr + rows[:, None] * stride_am + offs_k[None, :] * stride_ak\n    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + cols[None, :] * stride_bn\n",
        "    # strides, not shapes: a transposed or sliced operand is read where it lies\n    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak\n    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn\n",
    ),
    (
        "    c_ptrs = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn\n",
        "    c_ptrs = c_ptr + offs_am[:, None] * stride_cm + offs_bn[None, :] * stride_cn\n",
    ),
]
