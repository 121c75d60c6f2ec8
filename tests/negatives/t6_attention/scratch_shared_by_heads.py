"""Passes alpha through a scratch buffer, as triton 2.0's tutorial 06 did to dodge a compiler
bug, indexed by the query row alone: that tutorial's TMP + off_hz * N_CTX + offs_m without its
off_hz * N_CTX. Every (batch, head) program of one block of queries stores into the same floats
and loads them back. Run one at a time, each loads its own alpha; on a GPU programs of two heads
run at once, and one can load the other's. The interpreter sees the store, the other program's
store of another value, and the load back; on a GPU the race shows only when the timing lets
it, so this negative is the interpreter's."""

LOSES = ["attends"]
SAYS = "both stored into `tmp_ptr`"
RUNTIMES = ["interpreter"]
EDITS = [
    ("    lse_ptr,\n    stride_qb,\n", "    lse_ptr,\n    tmp_ptr,\n    stride_qb,\n"),
    (
        "        alpha = tl.math.exp2(running_max - new_max)\n",
        "        alpha = tl.math.exp2(running_max - new_max)\n"
        "        tl.store(tmp_ptr + rows, alpha)  # the mistake: rows only, not batch and head\n"
        "        alpha = tl.load(tmp_ptr + rows)\n",
    ),
    (
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n"
        "    tmp = torch.empty(grid[0] * BLOCK_M, dtype=torch.float32, device=q.device)\n",
    ),
    (
        "        out,\n        lse,\n        *q.stride()[:3],\n",
        "        out,\n        lse,\n        tmp,\n        *q.stride()[:3],\n",
    ),
]
