"""The optional exercise done in torch: the reference's kernel computes a @ b, then bias and
GELU run as more torch passes over c, the memory traffic the fused epilogue exists to save."""

LOSES = ["multiplies"]
SAYS = "torch"
EDITS = [
    (
        "    return launch(a, b, out, bias=bias.contiguous())\n",
        "    c = launch(a, b, out, bias=None)\n    return c.copy_(torch.nn.functional.gelu(c.float() + bias.float()))\n",
    ),
]
