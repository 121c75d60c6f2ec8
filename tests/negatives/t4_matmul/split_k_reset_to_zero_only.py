"""The old triton.ops.matmul's split-K with autotune's reset_to_zero=["C"] in place of the
library's pre_hook: c comes from torch.empty, and reset_to_zero zeroes it only around the timing
runs of a shape's first call. A later call of the same shape adds its partial sums into whatever
torch.empty gave, so the judge's second call finds its fill. The advice must not offer
reset_to_zero as the fix."""

LOSES = ["multiplies"]
SAYS = "only around the timing runs"
EDITS_OF = "tests/negatives/t4_matmul/split_k_output_not_zeroed.py"
EDITS = [
    (
        '    key=["M", "N", "K"],\n    prune_configs_by',
        '    key=["M", "N", "K"],\n    reset_to_zero=["C"],\n    prune_configs_by',
    ),
]
