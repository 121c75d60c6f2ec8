"""Loads q through a tensor descriptor the kernel makes (tl.make_tensor_descriptor), as
tutorial 06 does on Hopper. A GPU's TMA reads only rows that start a multiple of 16 bytes
apart, from a base at such a multiple; a view of q with gaps between its rows is neither, and
the judge refuses it on the interpreter too, with the reason, where the interpreter's own
check says only "stride must be 16-byte aligned"."""

LOSES = ["inside"]
SAYS = "a tensor descriptor's"
EDITS = [
    (
        """    q = tl.load(
        q_head + rows[:, None] * stride_qm + dims[None, :],
        mask=row_in[:, None] & dim_in[None, :],
        other=0.0,
    )
""",
        """    # the mistake: a descriptor needs rows 16 bytes apart, and q's may not be
    q_tiles = tl.make_tensor_descriptor(
        q_head, [seq_q, head_dim], [stride_qm, 1], [BLOCK_M, BLOCK_D]
    )
    q = q_tiles.load([start_m, 0])
""",
    ),
]
