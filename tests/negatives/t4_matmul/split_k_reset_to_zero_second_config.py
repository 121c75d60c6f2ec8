"""split_k_reset_to_zero_only with its interpreter configs the other way round: the first is
SPLIT_K = 1, which a GPU's list also puts first and which the judge's tied timing keeps, so only
a config chosen in turn shows what a GPU's autotune does when its timing picks the split one: the
second call of a shape adds its partial sums into whatever torch.empty gave."""

LOSES = ["multiplies"]
SAYS = "only around the timing runs"
EDITS_OF = "tests/negatives/t4_matmul/split_k_reset_to_zero_only.py"
EDITS = [
    (
        "shapes = [(32, 32, 16, 2), (32, 32, 16, 1)]",
        "shapes = [(32, 32, 16, 1), (32, 32, 16, 2)]",
    ),
    (
        "# nothing to time: the first config runs, a split-K one",
        "# nothing to time: the first config runs, SPLIT_K = 1",
    ),
]
