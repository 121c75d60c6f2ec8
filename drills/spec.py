"""Each drill's declared spec: its checks, in the order the learner reads them, and the shapes
its benchmark times. This is the only place a check's name and points live. The suites mark
their tests with a check's id (`@check("tail")`), a negative names what it loses by id
(`LOSES = ["tail"]`), and grading, the exports, `--check` and the bench read the rest from here.
It imports nothing heavy, so that the grader can read it without torch."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    id: str  # short and stable: what a suite's @check, a negative's LOSES and CHECK= name
    name: str  # what the learner reads: the behaviour the check's cases are chosen to prove
    points: int  # earned when every case passes; 0 for an optional check

    @property
    def optional(self) -> bool:
        """An optional check is reported, worth no points: a behaviour only some GPUs can show
        (a 4.3 GB tensor), which a learner should know about without being graded on it."""
        return self.points == 0


@dataclass(frozen=True)
class Spec:
    checks: tuple[Check, ...]
    # what the benchmark times, one dict of parameters a shape; the suite's BENCH turns each
    # into inputs, separate from the test shapes (those of the H200 baselines)
    bench_shapes: tuple[dict, ...]

    def check(self, id: str) -> Check:
        for c in self.checks:
            if c.id == id:
                return c
        known = ", ".join(c.id for c in self.checks)
        raise KeyError(f"no check has the id {id!r}; the ids are {known}")

    def named(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)


SPECS = {
    "t1_add": Spec(
        checks=(
            Check("adds", "adds two vectors", 15),
            Check("tail", "masks the tail (n not a multiple of BLOCK_SIZE)", 20),
            Check("tiny", "handles tiny sizes down to 1", 10),
            Check("dtypes", "keeps the input dtype (fp16, int32; bf16 on a GPU)", 10),
            Check("inside", "stays inside its tensors (no stray loads or stores)", 15),
            Check("allocates", "allocates the result when out= is not given", 10),
            Check("launches", "launches its Triton kernel (no torch arithmetic)", 10),
            Check("compiles", "compiles for a GPU (sm_90)", 10),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        bench_shapes=tuple({"n": 2**k} for k in range(16, 29, 2)),
    ),
    "t2_softmax": Spec(
        checks=(
            Check("softmax", "computes a row-wise softmax", 10),
            Check("padding", "pads masked lanes with -inf (rows that are not a power of two)", 15),
            Check("max", "subtracts the row max (values near 1000 do not overflow)", 10),
            Check("strides", "follows the row strides of x and out (rows of a wider tensor)", 15),
            Check("rows", "writes every row (row counts that do not divide evenly)", 10),
            Check("narrow", "handles rows of 1 and 2 columns", 5),
            Check("dtypes", "keeps the input dtype (fp16; bf16 on a GPU)", 10),
            Check("wide", "covers rows longer than 4096 columns with one block", 10),
            Check("inside", "stays inside its tensors (no stray loads or stores)", 5),
            Check(
                "launches",
                "launches its Triton kernel (no torch softmax) and allocates its result",
                5,
            ),
            Check("compiles", "compiles for a GPU (sm_90)", 5),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        bench_shapes=tuple(
            {"rows": m, "cols": n, "dtype": dtype}
            for dtype in ("fp32", "fp16")
            for m, n in [(4096, 256), (4096, 1024), (4096, 4096), (4096, 16384), (1024, 65536)]
        ),
    ),
    "t3_matmul": Spec(
        checks=(
            Check("multiplies", "multiplies matrices whose sides are multiples of the blocks", 10),
            Check("k_tail", "masks the K tail (K not a multiple of BLOCK_K)", 15),
            Check("edges", "masks the M and N edges (sides not multiples of the tile)", 15),
            Check("fp32", "accumulates in fp32 (long K)", 15),
            Check("row_lengths", "uses each matrix's own row length (non-square shapes)", 10),
            Check("grid", "launches a grid that covers c (rounds up)", 10),
            Check("acc_once", "starts the accumulator once per tile, not once per K step", 10),
            Check("last_k_block", "runs the K loop over the last, partial block", 5),
            Check(
                "launches",
                "launches its Triton kernel (no torch matmul) and allocates its result",
                5,
            ),
            Check("compiles", "compiles for a GPU (sm_90)", 5),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        bench_shapes=tuple(
            {"mnk": mnk}
            for mnk in [
                (1000, 3000, 2000),
                (4096, 4096, 512),
                (4096, 4096, 4096),
                (8192, 1024, 8192),
                (8192, 8192, 8192),
            ]
        ),
    ),
    "t4_matmul": Spec(
        checks=(
            Check("multiplies", "multiplies matrices", 10),
            Check(
                "autotune_grid",
                "computes its grid from the config autotune chose (every config)",
                15,
            ),
            Check("grouped", "visits every tile once, in grouped order", 10),
            Check(
                "last_group",
                "clips the last group (rows of tiles not a multiple of GROUP_SIZE_M)",
                10,
            ),
            Check("strides", "follows the strides of a, b and c (w.t(), slices)", 15),
            Check("k_tail", "masks the K tail", 10),
            Check("edges", "masks the M and N edges", 10),
            Check("fp32", "accumulates in fp32 (long K)", 10),
            Check(
                "launches",
                "launches its Triton kernel (no torch matmul) and allocates its result",
                5,
            ),
            Check("compiles", "compiles for a GPU (sm_90)", 5),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        # b_t: b is w.t(), a transposed view (the layout of a linear layer's weight)
        bench_shapes=tuple(
            {"mnk": mnk, "b_t": False}
            for mnk in [
                (16, 4096, 4096),
                (1000, 3000, 2000),
                (4096, 4096, 512),
                (4096, 4096, 4096),
                (8192, 1024, 8192),
                (8192, 8192, 8192),
            ]
        )
        # a layer's weight at a few rows (decoding tokens) and at a square
        + tuple({"mnk": mnk, "b_t": True} for mnk in [(16, 4096, 4096), (4096, 4096, 4096)]),
    ),
    "t5_online_softmax": Spec(
        checks=(
            Check("softmax", "computes a row-wise softmax", 5),
            Check("long", "walks rows longer than any block (past 2^20 columns)", 10),
            Check("rescale", "rescales the running sum when the max grows", 15),
            Check("late_max", "takes the last block into the max (the largest value last)", 10),
            Check("padding", "pads with -inf and starts the max at -inf (rows far below 0)", 10),
            Check(
                "dtypes", "keeps the input dtype, with fp32 statistics (fp16; bf16 on a GPU)", 10
            ),
            Check("strides", "follows the row strides of x and out", 10),
            Check("combine", "splits a row across parts programs and combines their pairs", 15),
            Check("inside", "stays inside its tensors (no stray loads or stores)", 5),
            Check(
                "launches",
                "launches its Triton kernels (no torch softmax) and allocates its result",
                5,
            ),
            Check("compiles", "compiles for a GPU (sm_90)", 5),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        bench_shapes=tuple(
            {"rows": m, "cols": n, "dtype": dtype}
            for dtype in ("fp32", "fp16")
            for m, n in [(1024, 65536), (512, 131072), (256, 262144), (8, 2**21)]
        ),
    ),
    "t6_attention": Spec(
        checks=(
            Check("attends", "computes softmax(scale * q @ k^T) @ v", 5),
            Check("tails", "masks the tails (seq_q and seq_k not multiples of the blocks)", 10),
            Check("lengths", "handles q and k of different lengths", 5),
            Check("head_dim", "handles head_dim from 16 to 128 (48, 80: not powers of two)", 10),
            Check("causal", "applies the causal mask (query i sees keys 0..i)", 15),
            Check("scale", "scales the scores (by 1 / sqrt(head_dim) unless told)", 5),
            Check("lse", "returns each row's log-sum-exp (natural log, fp32)", 10),
            Check("dtypes", "keeps q's dtype, with an fp32 accumulator (fp16; bf16 on a GPU)", 10),
            Check("strides", "follows the strides of q, k, v and out (packed qkv views)", 10),
            Check("inside", "stays inside its tensors (no stray loads or stores)", 5),
            Check("memory", "keeps the scores on chip (no seq_q x seq_k tensor in memory)", 5),
            Check(
                "launches",
                "launches its Triton kernel (no torch attention) and allocates its results",
                5,
            ),
            Check("compiles", "compiles for a GPU (sm_90)", 5),
            Check("int64", "indexes past 2^31 elements (int64 offsets)", 0),
        ),
        # fp16, as the models that use it run; heads of 64 and 128, with and without the mask
        bench_shapes=tuple(
            {"batch": b, "heads": h, "seq": n, "head_dim": d, "causal": causal}
            for causal in (False, True)
            for b, h, n, d in [(8, 16, 1024, 64), (4, 16, 4096, 64), (2, 16, 8192, 128)]
        ),
    ),
}


def of(slug: str) -> Spec:
    return SPECS[slug]
