"""`mask or wider` of two blocks: triton's compiler makes `or` of blocks element by element (a
deprecated form, with a warning), so the store's mask reaches 4096 elements past the end of
`out`. The interpreter used to take any block as true, so the `or` gave the first mask and the
file scored 100/100 on the grader of commit 4c67950; then the judge refused a block's truth on
the CPU, so it scored 0 there and 25 on a GPU. The interpreter now computes `and`, `or` and
`not` of blocks as the compiler does: where n is a multiple of the block the store stays in
bounds, and everywhere else it writes past `out`, on both runtimes alike. The reference, but for
its store."""

LOSES = ["tail", "tiny", "inside"]
SAYS = "outside the output"
EDITS = [
    (
        "    tl.store(out_ptr + offs, x + y, mask=mask)\n",
        "    tl.store(out_ptr + offs, x + y, mask=mask or (offs < n_elements + 4096))\n",
    ),
]
