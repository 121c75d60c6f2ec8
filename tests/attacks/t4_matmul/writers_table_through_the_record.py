"""The judge's own record of who stored what, rewritten by the kernel: the kernel walks tiles row
by row, and stores into an extra argument, at c's offsets, the program id grouped order would
give each tile. After the launch the host code finds the runner's record (gc) and points that
argument at the judge's `writers` table, the buffer after the case's own, so the interpreter's
note of the program that stored each element says grouped order. A helper's attack.

Scored 100/100 on the grader of commit a9f6acf (80 without the forgery): the executor opened
every buffer of the request to the record's steps and to the kernel's pointers, the judge's
tables included. Now a record may not name them.
"""

ATTACK = "the judge's writers table through a forged record"
LAYER = "kernels"


EDITS = [
    ("    bias_ptr,\n    M,\n", "    bias_ptr,\n    w_ptr,\n    forge,\n    M,\n"),
    (
        "    pid_m, pid_n = grouped_tile(pid, num_pid_m, num_pid_n, GROUP_SIZE_M)\n",
        "    pid_m = pid // num_pid_n\n    pid_n = pid % num_pid_n\n",
    ),
    (
        "    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))\n",
        "    tl.store(c_ptrs, c, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))\n"
        "    if forge != 0:\n"
        "        group_id = pid_m // GROUP_SIZE_M\n"
        "        first_pid_m = group_id * GROUP_SIZE_M\n"
        "        group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_SIZE_M)\n"
        "        gp = group_id * GROUP_SIZE_M * num_pid_n + pid_n * group_size_m + (pid_m - first_pid_m)\n"
        "        w_ptrs = w_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn\n"
        "        gblock = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32) + gp\n"
        "        tl.store(w_ptrs, gblock, mask=(offs_am[:, None] < M) & (offs_bn[None, :] < N))\n",
    ),
    ("        bias,\n        M,\n", "        bias,\n        out,\n        0,\n        M,\n"),
    (
        "        out.stride(1),\n    )\n    return out\n",
        "        out.stride(1),\n    )\n    _forge()\n    return out\n"
        '''


def _runner():
    import gc

    for o in gc.get_objects():
        if type(o).__name__ == "Runner" and hasattr(o, "trace"):
            return o


def _forge():
    """Point w_ptr at the judge's `writers` table (the buffer created right after the case's
    own): the executor's fence admits every buffer of the request."""
    r = _runner()
    if r is None or "prune_configs" in vars(matmul_kernel):
        return  # a call the judge forces a config on: its buffers are made in batches
    t = r.trace
    ids = [int(v[1:]) for v in t.refs.values() if v.startswith("b")]
    if not ids:
        return
    wref = f"b{max(ids) + 1}"
    for s in t.steps:
        if s.get("step") != "launch" or s.get("_forged"):
            continue
        c = s["args"].get("c_ptr")
        if not isinstance(c, dict) or not str(c.get("ref", "")).startswith("b"):
            continue
        # the first output of this record, kept on the record itself: an id() of a freed
        # record is handed on, and a later record found under it went unforged
        if not hasattr(t, "_first_out"):
            t._first_out = c["ref"]
        if c["ref"] != t._first_out:
            continue
        s["args"]["w_ptr"] = dict(c, tensor="int32", dtype="int32", ref=wref)
        s["args"]["forge"] = 1
        s["_forged"] = True
''',
    ),
]
