"""The store's mask without parentheses: `rows[:, None] < M & cols[None, :] < N`. Python's &
binds tighter than <, so this is the chained comparison rows < (M & cols) < N: triton before
3.9 refuses it on a GPU and its interpreter keeps only (M & cols) < N, which masks no row;
triton 3.9 computes it, and masks neither edge as meant. Either way the edge tiles store
outside c."""

LOSES = ["edges"]
SAYS = "binds tighter than a comparison"
# before 3.9 the interpreter keeps one comparison and the compiler refuses the chain
TRITON_CHANGES_AT = "3.9"
EDITS = [
    (
        "    tl.store(c_ptrs, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))\n",
        "    tl.store(c_ptrs, acc.to(tl.float16), mask=rows[:, None] < M & cols[None, :] < N)\n",
    ),
]
