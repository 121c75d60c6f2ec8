"""Right values, but strided rows go through torch copies: x.contiguous() before the kernel and
out.copy_(result) after it, so the kernel never uses a row stride. Only the strides check may
cost it points: a copy is no computation."""

LOSES = ["strides"]
SAYS = "torch copied a tensor outside the kernel"
MAX_SCORE = 85
EDITS = [
    (
        "    check_inputs(x, out)\n    if out is None:\n        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n",
        "    check_inputs(x, out)\n    x = x.contiguous()\n    result = torch.empty_like(x)\n",
    ),
    (
        "        x,\n        out,\n        n_rows,",
        "        x,\n        result,\n        n_rows,",
    ),
    (
        "        out.stride(0),\n",
        "        result.stride(0),\n",
    ),
    (
        "    return out\n",
        "    if out is None:\n        return result\n    out.copy_(result)\n    return out\n",
    ),
]
