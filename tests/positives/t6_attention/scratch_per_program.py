"""Correct, written differently: alpha passes through a scratch buffer in memory, as triton
2.0's tutorial 06 did to dodge a compiler bug, each (batch, head) program with rows of its own
(TMP + off_hz * N_CTX + offs_m there): a program loads back only what it stored itself. A
barrier between the store and the load: each row's alpha is held by several threads, and on a
GPU a thread may load the row another stored (without it, an H100 read NaN from the buffer)."""

EDITS = [
    ("    lse_ptr,\n    stride_qb,\n", "    lse_ptr,\n    tmp_ptr,\n    stride_qb,\n"),
    (
        "        alpha = tl.math.exp2(running_max - new_max)\n",
        "        alpha = tl.math.exp2(running_max - new_max)\n"
        "        t_ptrs = tmp_ptr + batch_head * tl.num_programs(0) * BLOCK_M + rows\n"
        "        tl.store(t_ptrs, alpha)\n"
        "        tl.debug_barrier()\n"
        "        alpha = tl.load(t_ptrs)\n",
    ),
    (
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n",
        "    grid = (triton.cdiv(seq_q, BLOCK_M), batch * n_heads)\n"
        "    tmp = torch.empty(grid[1], grid[0] * BLOCK_M, dtype=torch.float32, device=q.device)\n",
    ),
    (
        "        out,\n        lse,\n        *q.stride()[:3],\n",
        "        out,\n        lse,\n        tmp,\n        *q.stride()[:3],\n",
    ),
]
