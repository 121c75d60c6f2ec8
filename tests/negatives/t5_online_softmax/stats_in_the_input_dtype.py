"""The (max, sum) buffer is allocated in x's dtype: an fp16 part whose sum of exp() passes
65504 stores inf, and its row comes out 0."""

LOSES = ["dtypes"]
SAYS = "passed 65504"
EDITS = [
    (
        "    stats = torch.empty(2, n_rows, parts, dtype=torch.float32, device=x.device)\n",
        "    stats = torch.empty(2, n_rows, parts, dtype=x.dtype, device=x.device)\n",
    ),
]
