"""Graded checks for t6 · Attention forward. Lesson: content/t6_attention.md

Every case runs the learner's `attention` on q, k and v, and into `out` and `lse`, each inside
a canary-filled buffer (with canaries between the rows, or in the slots of a packed qkv layout,
where the case is strided), so each check also catches reads and writes outside the tensors,
elements never written and a result computed without the kernel. The expected result is
softmax(scale * q @ k^T) @ v and its log-sum-exp, in float64. `lse` is always passed and must
be returned; its values are graded by the "lse" check (and "inside" and "launches"), so that
one mistake in it does not cost every check.
"""

import dataclasses
import math

import pytest
import torch

from drills import spec
from drills.bench import Bench, Shape
from drills.failures import Kind
from drills.judge.testing import (
    DTYPE_NAMES,
    Case,
    Drawn,
    Guarded,
    Hints,
    Tolerance,
    big_gpu_memory,
    check_allocates,
    checks_of,
    device,
    fail,
    far_nearer,
    generator,
    matches,
    needs_bf16,
    needs_gpu,
    run_case,
    run_in_every_autotune_config,
    run_twice,
    sides,
)
from drills.judge.testing.case import Extra

# p is rounded to fp16 (bf16) before its tl.dot with v, as every fast kernel does: about 2^-11
# (2^-8) of each weight; out itself is rounded to fp16 (bf16) when stored
TOLERANCES = {
    torch.float16: Tolerance(4e-3, 4e-3),
    torch.bfloat16: Tolerance(2.5e-2, 1.6e-2),
}
# the log-sum-exp comes from fp32 dot products of the inputs: far closer than the output. A
# kernel may fold the scale into q in q's dtype before the first dot, which rounds every score
# by up to 2^-11 (fp16) or 2^-8 (bf16) of its size; lse's mistakes are off by 0.4 and more
LSE_TOLERANCES = {
    torch.float16: Tolerance(2e-3, 2e-4),
    torch.bfloat16: Tolerance(1.6e-2, 2e-3),
}
LOG2_E = 1 / math.log(2)
# the output's where scores are large (scale 1 at head_dim 64) and q may hold the scale in fp16
SCALED_Q_TOLERANCE = Tolerance(1e-2, 1e-2)

SPEC = spec.of("t6_attention")  # the checks' ids, names and points, and the bench shapes
check = checks_of(SPEC)

HINTS = Hints(
    outside="Mask every load and store: rows < seq_q for q, out and lse, keys < seq_k for k "
    "and v, and dims < head_dim on every tensor (BLOCK_D may be larger than head_dim).",
    outside_read="Load k's and v's last block with mask = keys < seq_k (and dims < head_dim), "
    "and q's rows with rows < seq_q; masked lanes of k and v load 0. Where the masks are "
    "right, the offsets are not: each of q, k and v takes its own batch, head and row strides "
    "(and a read far outside one tensor may land beside another).",
    unwritten="Give every (batch, head) its programs (the grid's second axis is batch * "
    "heads) and every block of queries one (cdiv(seq_q, BLOCK_M)), and store the whole block, "
    "masked to rows < seq_q and dims < head_dim.",
    nan="NaN means a row's running max was still -inf when exp() ran (a row whose keys were "
    "all masked: -inf - -inf), alpha was taken the wrong way round (exp2(new max - old max) "
    "is exp2(+inf) on the first block, times an accumulator of 0), or an unmasked read of "
    "padding reached the sums.",
    values="out = softmax(scale * q @ k^T) @ v, row by row: a running max and sum as in t5, "
    "the accumulator rescaled by exp(old max - new max) whenever the max grows, and divided "
    "by the sum at the end.",
    near="p is rounded to q's dtype for the second tl.dot; keep the max, the sum and the "
    "accumulator in fp32.",
)
TAIL_HINTS = dataclasses.replace(
    HINTS,
    values="The last block of keys is partial: its scores past seq_k must be -inf before the "
    "max and exp(), so that they add nothing to the sum (a score of 0 still adds exp(0 - max)).",
)
CAUSAL_HINTS = dataclasses.replace(
    HINTS,
    values="With causal=True, query i sees keys 0..i: scores where key > query are -inf. The "
    "loop may stop after the block holding the program's last query, but not before it.",
)
LSE_HINTS = dataclasses.replace(
    HINTS,
    values="lse[b, h, i] is log(sum over keys j of exp(scale * q_i . k_j)): the row's max "
    "after its last block of keys plus the log of its running sum, m + log(l), in the loop's "
    "base; from base 2, (m + log2(l)) / log2(e). Store it in fp32 at b * lse.stride(0) + h * "
    "lse.stride(1) + i.",
)
OWN_STRIDES = (
    "q, k, v and out each have their own strides: element (b, h, i, d) of q is at b * "
    "q.stride(0) + h * q.stride(1) + i * q.stride(2) + d. Pass all of them: in a packed qkv "
    "tensor a row of q is 3 * heads * head_dim elements after the one before."
)
STRIDE_HINTS = dataclasses.replace(
    HINTS,
    values=OWN_STRIDES,
    # on a GPU the reads of another layout go unseen, and the canaries they reach read as NaN
    nan=f"{OWN_STRIDES} Reads at the wrong places reach the canaries around the tensors, NaN.",
    outside_read="q, k, v and out each have their own strides (a packed qkv view's are not "
    "a contiguous tensor's): pass them all to the kernel and index with them.",
)


# ---------------------------------------------------------------------------------------------
# The right result, and the mistakes' results
# ---------------------------------------------------------------------------------------------


def scores_of(q, k, scale: float, causal: bool) -> torch.Tensor:
    """scale * q @ k^T in float64, -inf where the causal mask hides a key."""
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if causal:
        n_q, n_k = s.shape[-2:]
        hidden = torch.ones(n_q, n_k, dtype=torch.bool, device=s.device).tril().logical_not()
        s = s.masked_fill(hidden, -math.inf)
    return s


def attention_of(s: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(softmax(s) @ v, logsumexp(s)) in float64."""
    return torch.softmax(s, dim=-1) @ v.double(), torch.logsumexp(s, dim=-1)


def blockwise(
    s: torch.Tensor,
    v: torch.Tensor,
    block_n: int,
    *,
    rescale_acc: bool = True,
    rescale_sum: bool = True,
    alpha_power: float = 1.0,
    start_max: float = -math.inf,
    pad_score: float | None = None,
    pad_in_max_only: bool = False,
    p_dtype: torch.dtype = torch.float64,
) -> torch.Tensor:
    """The output a kernel computes walking the keys in blocks of block_n, with one of the
    online softmax's steps left out or changed: alpha_power is what the rescale's exponent is
    multiplied by (log2(e) where it takes exp of a base-2 difference); start_max is where the
    running max starts; pad_score is what the last, partial block's missing keys score (their
    v being 0) where a kernel pads them with a number instead of -inf, in the max alone where
    pad_in_max_only (a max taken before the mask). p goes to the second dot in p_dtype, as a
    kernel converts it to v's (where it underflows, it adds nothing)."""
    v = v.double()
    running_max = torch.full(s.shape[:-1], start_max, dtype=s.dtype, device=s.device)
    running_sum = torch.zeros_like(running_max)
    acc = torch.zeros(*s.shape[:-1], v.shape[-1], dtype=s.dtype, device=s.device)
    for start in range(0, s.shape[-1], block_n):
        block, values = s[..., start : start + block_n], v[..., start : start + block_n, :]
        missing = block_n - block.shape[-1]
        for_max = block
        if pad_score is not None and missing:
            for_max = torch.nn.functional.pad(block, (0, missing), value=pad_score)
            if not pad_in_max_only:
                block = for_max
                values = torch.nn.functional.pad(values, (0, 0, 0, missing))
        new_max = torch.maximum(running_max, for_max.amax(dim=-1))
        alpha = torch.exp((running_max - new_max) * alpha_power)
        p = torch.exp(block - new_max[..., None])
        running_sum = (running_sum * alpha if rescale_sum else running_sum) + p.sum(dim=-1)
        acc = (acc * alpha[..., None] if rescale_acc else acc) + p.to(p_dtype).double() @ values
        running_max = new_max
    return acc / running_sum[..., None]


def attention_mistake(q, k, v, *, scale: float, causal: bool, default_scale: bool, dtype):
    """A case's diagnose(): it names the mistakes of an attention kernel by their results,
    modelled in float64 with the launch's BLOCK_N where one needs it. A model is named where
    the output matches it and it is told apart from the right result: by the tolerance, or,
    for a mistake whose effect is the size of rounding (one key too many), by the output lying
    far nearer to it than to the right result."""
    s = scores_of(q, k, scale, causal)
    right, right_lse = attention_of(s, v)
    tol = TOLERANCES[dtype]
    head_dim = q.shape[-1]

    def diagnose(launch, out: torch.Tensor) -> str:
        def left(candidate: torch.Tensor) -> bool:
            if not matches(out, candidate, tol):
                return False
            return not matches(candidate, right, tol) or far_nearer(out, candidate, right)

        if scale == 0.0 and bool(out.isnan().any()):
            return (
                "with scale=0 every score is 0 and each row's softmax is uniform, but NaN came "
                "out: a score masked to -inf before the scale multiplies it is -inf * 0, NaN. "
                "Scale the scores first, then mask them: tl.where(visible, s * qk_scale, -inf)."
            )
        if scale != 1.0 and left(attention_of(scores_of(q, k, 1.0, causal), v)[0]):
            return (
                "the scores were not scaled: softmax takes scale * q . k, and scale is "
                "1 / sqrt(head_dim) unless the call gives one. Multiply the scores by it "
                "(times log2(e) where you use exp2) before the max."
            )
        if left(attention_of(scores_of(q, k, scale * LOG2_E, causal), v)[0]):
            return (
                "the scores were scaled by log2(e) for exp2, but went to exp: multiply by "
                "log2(e) only where you use tl.math.exp2, for the max and the sum alike."
            )
        # twice: scale * scale, or with exp2, (scale * log2(e))^2 in base 2
        for twice in (scale**2, scale**2 * LOG2_E):
            if scale not in (0.0, 1.0) and left(attention_of(scores_of(q, k, twice, causal), v)[0]):
                return "the scores were scaled twice: apply the scale (times log2(e)) once."
        if left(attention_of(scores_of(q, k, scale * math.log(2), causal), v)[0]):
            return (
                "the scores went to exp2 scaled for exp: exp2(x) is exp(x * ln 2), so a "
                "softmax computed with exp2 needs the scores multiplied by log2(e) as well as "
                "by the scale (qk_scale = scale * log2(e))."
            )
        overflowed = torch.isinf(out) & torch.isfinite(right.to(out.device))
        # a key past the first 16 scoring more than ln(65504) above them: p of fp16 overflows
        # where the max that p subtracts missed it
        late = s.shape[-1] > 16 and bool(
            (s[..., 16:].amax(dim=-1) - s[..., :16].amax(dim=-1) > 11.1).any()
        )
        if late and bool(overflowed.any()):
            return (
                "inf came out, and a key past the row's first ones scores far above them: "
                "exp(score - max) of that key passed fp16's range, so the max it subtracted "
                "missed it. Update the running max with every block of keys, new_max = "
                "tl.maximum(running_max, tl.max(scores, axis=1)), before computing p."
            )
        if dtype == torch.float16 and bool(overflowed.any()):
            return (
                "the output overflowed to inf: the accumulator, which sums p @ v before the "
                "division, passed 65504, fp16's largest. Keep it in fp32 (tl.zeros(..., "
                "dtype=tl.float32), tl.dot(p, v, acc)) and convert only what you store."
            )
        if dtype == torch.float16 and s.shape[-1] > 65504 and bool((out == 0).all()):
            return (
                "every output is 0: over more than 65504 keys the running sum passed fp16's "
                "largest and went to inf, and acc / inf is 0. Keep the running max and sum in "
                "fp32, as the accumulator."
            )
        # a block of keys past seq_k, or after a query; masked with a finite value, they win:
        # past seq_k, their v loads as 0 (and a running max started at -1e4 gives NaN instead)
        masked_keys = causal or s.shape[-1] % 16
        won = causal or left(torch.zeros_like(right))
        below = bool((s.amax(dim=-1) < FINITE_MASK).all())
        if masked_keys and below and won and not bool(out.isnan().any()):
            return (
                f"every score of this case is below {FINITE_MASK:g}: keys masked with a large "
                "finite value (-1e4, an fp16 habit) instead of -inf scored above the row's own "
                "and took its weight. Mask with -float('inf')."
            )
        padded = max(16, 1 << (head_dim - 1).bit_length())
        if default_scale and padded != head_dim:
            wrong_scale = 1 / math.sqrt(padded)
            if left(attention_of(scores_of(q, k, wrong_scale, causal), v)[0]):
                return (
                    f"the scores were scaled by 1 / sqrt({padded}), the padded BLOCK_D, not by "
                    f"1 / sqrt({head_dim}), the head_dim: compute the default scale from "
                    "q.shape[-1] on the host."
                )
        if causal:
            if left(attention_of(scores_of(q, k, scale, False), v)[0]):
                return (
                    "causal=True, but every query saw every key: mask the scores where the "
                    "key comes after the query (cols > rows) to -inf."
                )
            strict = s.masked_fill(
                torch.eye(s.shape[-1], dtype=torch.bool, device=s.device), -math.inf
            )
            if left(attention_of(strict, v)[0]):
                return (
                    "the causal mask hid each query's own key as well (key < query): query i "
                    "sees keys 0..i, the diagonal included (key <= query)."
                )
        # acc itself: sum over the keys of exp(s - the row's max) * v
        if left(right * torch.exp(right_lse - s.amax(dim=-1))[..., None]):
            return "the output was not divided by the running sum: store acc / running_sum."
        block_n = launch.size("BLOCK_N") if launch is not None else None
        if not block_n:
            return ""
        block_m = launch.size("BLOCK_M")
        if causal and block_m:
            # the keys a loop that ends at the program's first query reaches
            rows = torch.arange(s.shape[-2], device=s.device)
            reached = torch.div(
                rows // block_m * block_m + block_n - 1, block_n, rounding_mode="floor"
            )
            cols = torch.arange(s.shape[-1], device=s.device)
            early = s.masked_fill(cols[None, :] >= reached[:, None] * block_n, -math.inf)
            if left(attention_of(early, v)[0]):
                return (
                    "with causal=True the loop stopped before the block of keys that holds the "
                    "program's own queries (the diagonal), so the first block's rows saw no key "
                    "at all: loop up to min(seq_k, start_m + BLOCK_M), the end of the program's "
                    "last query."
                )
            # the loop's end taken as start_m + BLOCK_N: short of the program's last queries
            # where BLOCK_M > BLOCK_N
            ends = torch.div(
                rows // block_m * block_m + 2 * block_n - 1, block_n, rounding_mode="floor"
            )
            by_block_n = s.masked_fill(cols[None, :] >= ends[:, None] * block_n, -math.inf)
            if block_m > block_n and left(attention_of(by_block_n, v)[0]):
                return (
                    "with causal=True the loop over keys ended at start_m + BLOCK_N, not at "
                    f"start_m + BLOCK_M: with BLOCK_M = {block_m} and BLOCK_N = {block_n}, the "
                    "program's later queries never saw the keys up to their own. Loop up to "
                    "min(seq_k, start_m + BLOCK_M)."
                )
        partial = s.shape[-1] % block_n
        if partial and block_n - partial > 1:
            # a key mask of cols <= seq_k: one key past the end, whose k loads as 0, scores 0
            # (where the block has room for only that one, no key mask at all is the same)
            one_more = torch.nn.functional.pad(s, (0, 1), value=0.0)
            if causal:
                rows = torch.arange(s.shape[-2], device=s.device)
                one_more[..., -1] = torch.where(rows >= s.shape[-1], 0.0, -math.inf)
            extra_v = torch.nn.functional.pad(v.double(), (0, 0, 0, 1))
            if left(attention_of(one_more, extra_v)[0]):
                return (
                    "one key past the end took part: the key mask let cols == seq_k in (cols "
                    "<= seq_k), and that key, loaded as 0, scored 0. Keep keys with cols < "
                    "seq_k."
                )
        scored_0 = blockwise(s, v, block_n, pad_score=0.0) if partial else None
        started_at_0 = blockwise(s, v, block_n, start_max=0.0, p_dtype=dtype)
        if left(started_at_0):
            # rows whose scores are all far below 0: the two mistakes give the same output
            either = (
                "or the keys past seq_k in the last block scored 0, not -inf, "
                if partial and matches(scored_0, started_at_0, tol)
                else ""
            )
            return (
                f"the running max started at 0, not -inf, {either}so that a row whose scores "
                "are all far below 0 kept 0 as its max and every exp(score - max) underflowed. "
                "Start the running max at -inf (tl.full([BLOCK_M], -float('inf'), ...)) and "
                "set the scores of keys >= seq_k to -inf before the max."
            )
        if partial and left(scored_0):
            return (
                f"the keys past seq_k in the last block of {block_n} scored 0, not -inf: each "
                "added exp(0 - max) to the sum. Set the scores of keys >= seq_k to -inf "
                "(tl.where) before the max."
            )
        before_mask = blockwise(s, v, block_n, pad_score=0.0, pad_in_max_only=True, p_dtype=dtype)
        if partial and left(before_mask):
            return (
                "the row's max was taken before the mask: the keys past seq_k in the last "
                "block scored q . 0 = 0, far above a row whose scores are all below 0, and "
                "every exp(score - max) of the row underflowed. Apply tl.where(..., -inf) to "
                "the scores first, then take the max."
            )
        left_out = partial or block_n
        whole = s.shape[-1] - left_out
        if whole and left(attention_of(s[..., :whole], v[..., :whole, :])[0]):
            keys = "key" if left_out == 1 else f"{left_out} keys"
            return (
                f"the loop over keys stopped a block short: it never took the last {keys}. "
                "range(0, seq_k, BLOCK_N) visits the last, partial block too."
            )
        if left(blockwise(s, v, block_n, rescale_acc=False)):
            return (
                "the accumulator was not rescaled when the max grew: what it gathered under "
                "the old max must be multiplied by alpha = exp(old max - new max) before the "
                "block's p @ v is added, as the running sum is."
            )
        if left(blockwise(s, v, block_n, rescale_sum=False)):
            return (
                "the running sum was not rescaled when the max grew: multiply it by alpha = "
                "exp(old max - new max) before adding the block's row sums of p."
            )
        # a base-2 difference of maxes into exp, or a natural one into exp2
        for power, used, meant in ((LOG2_E, "tl.exp", "exp2"), (math.log(2), "exp2", "tl.exp")):
            if left(blockwise(s, v, block_n, alpha_power=power)):
                return (
                    f"the rescale alpha = {used}(old max - new max) is in another base than "
                    f"p: the maxes are in the units p goes to {meant} in, so take alpha with "
                    f"{meant} as well."
                )
        return ""

    return diagnose


def lse_mistake(s: torch.Tensor, tol: Tolerance):
    """The log-sum-exp's diagnose(): its usual mistakes, by their results."""
    right = torch.logsumexp(s, dim=-1)
    row_max = s.amax(dim=-1)
    log_sum = right - row_max  # log of the sum of exp(s - max)

    def diagnose(launch, lse: torch.Tensor) -> str:
        def left(candidate: torch.Tensor) -> bool:
            return not matches(candidate, right, tol) and matches(lse, candidate, tol)

        if left(right * LOG2_E):
            return (
                "lse is in base 2 (the max and the sum of the exp2 loop): the contract is the "
                "natural log. Divide by log2(e), or lse = ln(2) * (max + log2(sum))."
            )
        if left(row_max * LOG2_E + log_sum):
            return (
                "lse adds a base-2 max (the scores were scaled by log2(e) for exp2) to a "
                "natural log of the sum: take both in one base, (max + log2(sum)) / log2(e)."
            )
        if left(log_sum):
            return "lse is the log of the sum alone: the sum was taken against the row's max, so add it back."
        if left(row_max):
            return "lse is the row's max alone: add the log of the running sum."
        return ""

    return diagnose


# ---------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------


def packed_strides(heads: int, seq: int, head_dim: int, slots: int = 3) -> tuple[int, ...]:
    """The strides of q (or k, or v) as a view of a packed (batch, seq, slots, heads,
    head_dim) tensor: qkv.unflatten(...)[:, :, 0].transpose(1, 2)."""
    return (seq * slots * heads * head_dim, head_dim, slots * heads * head_dim, 1)


# Rows whose scores all lie below this are the only ones a mask of -1e4 instead of -inf fails
FINITE_MASK = -1e4

# A key whose every value is this, against q near 1: a score about 4 * head_dim * scale above
# the row's others (32 at head_dim 64), which no p of fp16 survives unless the max takes it in
LATE_KEY = 4.0


def make_case(
    impl,
    shape: tuple[int, int, int, int, int],
    dtype: torch.dtype = torch.float16,
    *,
    seed: int = 0,
    causal: bool = False,
    scale: float | None = None,
    q_scale: float = 1.0,
    q_shift: float = 0.0,
    k_shift: float = 0.0,
    v_shift: float = 0.0,
    one_key: tuple[int, float] | None = None,
    packed: bool = False,
    v_packed: bool | None = None,
    gaps: tuple[int, int] = (0, 0),
    k_gap: int | None = None,
    out_heads_last: bool = False,
    lse_gap: int = 0,
    lse_batch_gap: int = 0,
    check_lse: bool = False,
    hints: Hints = HINTS,
) -> Case:
    """An attention case, shape (batch, heads, seq_q, seq_k, head_dim), on randn inputs; q
    times q_scale plus q_shift, k plus k_shift, v plus v_shift; one_key = (index, value) sets
    every value of that key to value, in every head. packed lays q, k and v out as
    views of packed qkv tensors (v alone as v_packed says, where given); gaps puts canaries
    between the rows of q, k and v (gaps[0], or k_gap for k where given) and of out (gaps[1]);
    out_heads_last lays out as a view of a (batch, seq, heads, head_dim) tensor; lse_gap puts
    canaries between lse's rows (one a head), and lse_batch_gap more between its batches."""
    batch, heads, seq_q, seq_k, head_dim = shape
    gen = generator(seed)

    def randn(seq: int) -> torch.Tensor:
        return torch.randn(batch, heads, seq, head_dim, generator=gen, device=device())

    q = randn(seq_q) * q_scale + q_shift
    k, v = randn(seq_k) + k_shift, randn(seq_k) + v_shift
    if one_key is not None:
        k[:, :, one_key[0], :] = one_key[1]
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)

    def laid_out(values: torch.Tensor, seq: int, as_packed: bool, gap: int) -> Guarded:
        if as_packed:
            return Guarded.holding(values, strides=packed_strides(heads, seq, head_dim))
        return Guarded.holding(values, row_gap=gap)

    inputs = {
        "q": laid_out(q, seq_q, packed, gaps[0]),
        "k": laid_out(k, seq_k, packed, gaps[0] if k_gap is None else k_gap),
        "v": laid_out(v, seq_k, packed if v_packed is None else v_packed, gaps[0]),
    }
    out_strides = packed_strides(heads, seq_q, head_dim, slots=1) if out_heads_last else None
    out = Guarded(
        (batch, heads, seq_q, head_dim), dtype, output=True, row_gap=gaps[1], strides=out_strides
    )
    lse_strides = None
    if lse_batch_gap:
        lse_strides = (heads * (seq_q + lse_gap) + lse_batch_gap, seq_q + lse_gap, 1)
    lse = Guarded(
        (batch, heads, seq_q), torch.float32, output=True, row_gap=lse_gap, strides=lse_strides
    )
    used_scale = 1 / math.sqrt(head_dim) if scale is None else scale
    s = scores_of(q, k, used_scale, causal)
    expected, expected_lse = attention_of(s, v)
    kwargs = ({"causal": True} if causal else {}) | ({} if scale is None else {"scale": scale})
    layout = (
        (" packed qkv" if packed else "")
        + (f" row gaps {gaps[0]}/{gaps[1]}" if any(gaps) else "")
        + (f" k row gap {k_gap}" if k_gap is not None and not packed else "")
        + (" out heads-last" if out_heads_last else "")
        + (" v packed" if v_packed and not packed else "")
        + (f" lse row gap {lse_gap}" if lse_gap else "")
        + (f" lse batch gap {lse_batch_gap}" if lse_batch_gap else "")
    )
    return Case(
        name=f"{batch}x{heads}x{seq_q}x{seq_k}x{head_dim} {DTYPE_NAMES[dtype]} seed={seed}"
        + (" causal" if causal else "")
        + (f" scale={scale:g}" if scale is not None else "")
        + (f" q*{q_scale:g}" if q_scale != 1 else "")
        + (f" q{q_shift:+g} k{k_shift:+g}" if q_shift or k_shift else "")
        + (f" v+{v_shift:g}" if v_shift else "")
        + (f" key {one_key[0]} = {one_key[1]:g}" if one_key is not None else "")
        + layout,
        fn=impl.attention,
        inputs=inputs,
        out=out,
        expected=expected.to(dtype),
        tol=TOLERANCES[dtype],
        hints=hints,
        kwargs=kwargs,
        owner=owner,
        why_outside=past_head_dim(inputs | {"out": out, "lse": lse}, head_dim),
        diagnose=attention_mistake(
            q, k, v, scale=used_scale, causal=causal, default_scale=scale is None, dtype=dtype
        ),
        extra={
            "lse": Extra(
                lse,
                expected_lse.float(),
                LSE_TOLERANCES[dtype],
                hints=LSE_HINTS,
                diagnose=lse_mistake(s, LSE_TOLERANCES[dtype]),
                checked=check_lse,
            )
        },
    )


def past_head_dim(tensors: dict[str, Guarded], head_dim: int):
    """A case's why_outside(): stray elements that all lie among the dimensions a block has
    beyond head_dim, just after the end of the tensor's rows."""

    def why(launch, name: str, offsets: list[int]) -> str:
        block_d = launch.size("BLOCK_D") if launch is not None else None
        if name not in tensors or not block_d or block_d <= head_dim:
            return ""
        t = tensors[name].tensor
        starts = torch.zeros((), dtype=torch.int64)
        for n, stride in zip(t.shape[:-1], t.stride()[:-1], strict=True):
            starts = (starts[..., None] + torch.arange(n) * stride).flatten()
        beyond = starts[:, None] + torch.arange(head_dim, block_d)[None, :]
        if not set(offsets) <= set(beyond.flatten().tolist()):
            return ""
        return (
            f"every stray element lies just past the end of a row of `{name}`, among the "
            f"{block_d - head_dim} dimensions a block of BLOCK_D = {block_d} has beyond head_dim "
            f"= {head_dim}: mask dims < head_dim on every load and store."
        )

    return why


def owner(launch, idx) -> str:
    batch, head, row = idx[:3]
    block_m = launch.size("BLOCK_M") if launch is not None else None
    where = f"batch {batch}, head {head}, query {row}"
    if block_m:
        first = row // block_m * block_m
        where += f" (the block of queries {first}..{first + block_m - 1})"
    return where


def gpu(shape, why: str = "too large for the CPU"):
    return pytest.param(shape, id="x".join(map(str, shape)), marks=needs_gpu(why))


def shapes(*listed):
    return [pytest.param(s, id="x".join(map(str, s))) for s in listed]


def drawn_shape(seed: int, bounds) -> tuple[int, ...]:
    """(batch, heads, seq_q, seq_k, head_dim) with drawn sides where `bounds` is Drawn."""
    return tuple(sides(bounds, seed=seed))


# ---------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------


@check("attends")
@pytest.mark.parametrize(
    "shape",
    shapes((1, 2, 64, 64, 32), (2, 3, 128, 128, 64)) + [gpu((4, 8, 1024, 1024, 64))],
)
def test_attends(impl, shape):
    run_case(make_case(impl, shape, seed=1))


@check("attends")
def test_attends_below_zero(impl):
    # every score near -70, in whole blocks of keys: a running max started at 0, not -inf,
    # stays at 0 and every p of the row underflows
    run_case(make_case(impl, (1, 1, 64, 128, 64), seed=1, q_shift=-3.0, k_shift=3.0))


@check("attends")
def test_attends_to_a_late_key(impl):
    # one key far above the rest, past the first blocks of keys of any config: a max taken from
    # the first block and kept leaves that key's p past fp16's range
    case = make_case(impl, (1, 2, 64, 300, 64), seed=1, q_shift=1.0, one_key=(290, LATE_KEY))
    run_case(case)


@check("attends")
def test_attends_twice(impl):
    # two calls in a row: what the first leaves behind must not change the second's result
    run_twice(make_case(impl, (1, 2, 100, 100, 32), seed=1))


@check("tails")
@pytest.mark.parametrize(
    "shape",
    shapes((1, 2, 100, 100, 64), (2, 1, 65, 65, 32), (1, 1, 1, 1, 16), (1, 1, 3, 5, 32))
    + [
        pytest.param(
            Drawn(((1, 2), (1, 2), (1, 200), (1, 200), (16, 16)), near=(16, 32, 64, 128)),
            id="drawn",
        ),
        gpu((2, 4, 1000, 1000, 64)),
    ],
)
def test_masks_the_tails(impl, shape):
    case = make_case(impl, drawn_shape(2, shape), seed=2, hints=TAIL_HINTS)
    run_case(case)


@check("tails")
def test_masks_the_keys_before_the_max(impl):
    # every score near -70 and a partial last block of keys: a max taken before the mask
    # counts the missing keys' scores, q . 0 = 0, far above the row's own, and every p of the
    # row underflows
    shape = (1, 1, 50, 77, 64)
    run_case(make_case(impl, shape, seed=2, q_shift=-3.0, k_shift=3.0, hints=TAIL_HINTS))


@check("tails")
def test_masks_the_keys_below_minus_1e4(impl):
    # keys past seq_k masked with a large finite value (-1e4, an fp16 habit) instead of -inf
    # score above the rows' own and take their weight
    run_case(below_minus_1e4(impl, (1, 1, 50, 77, 64), seed=2, hints=TAIL_HINTS))


def below_minus_1e4(impl, shape, *, seed: int, hints: Hints, causal: bool = False) -> Case:
    """Every score near -1.3e4 (-1.8e4 in base 2) and key 0 about 300 above the others in
    every row: the output is v's first row, to a rounding far inside the tolerance, where
    scores this far from 0 carry errors of 0.01 that near ties would show."""
    return make_case(
        impl,
        shape,
        seed=seed,
        causal=causal,
        q_shift=-40.0,
        k_shift=40.0,
        one_key=(0, 39.0),
        hints=hints,
    )


@check("tails")
def test_tails_in_every_autotune_config(impl):
    # a kernel autotuned over its blocks may run with any config: each must mask its tails
    run_in_every_autotune_config(make_case(impl, (1, 1, 100, 77, 32), seed=2, hints=TAIL_HINTS))


@check("lengths")
@pytest.mark.parametrize(
    "shape",
    # more keys than queries, fewer, and one query (a decoding step)
    shapes((1, 2, 100, 300, 32), (1, 1, 300, 37, 32), (2, 1, 1, 200, 64))
    + [gpu((1, 8, 1000, 3000, 64)), gpu((2, 4, 4096, 128, 128))],
)
def test_lengths(impl, shape):
    run_case(make_case(impl, shape, seed=3, hints=TAIL_HINTS))


@check("head_dim")
@pytest.mark.parametrize(
    "shape",
    # 80 and 48 are not powers of two: BLOCK_D is larger, and the extra dimensions are masked
    shapes((1, 1, 70, 70, 16), (1, 1, 70, 70, 128), (1, 2, 70, 90, 80), (1, 1, 33, 33, 48))
    + [gpu((2, 8, 512, 512, 96))],
)
def test_head_dims(impl, shape):
    run_case(make_case(impl, shape, seed=4))


@check("causal")
@pytest.mark.parametrize(
    "shape",
    shapes((1, 2, 64, 64, 32), (2, 1, 100, 100, 64), (1, 1, 1, 1, 16), (1, 2, 257, 257, 32))
    + [
        pytest.param(Drawn(((1, 1), (1, 2), (2, 260), (1, 1), (32, 32))), id="drawn"),
        gpu((2, 8, 2048, 2048, 128)),
    ],
)
def test_causal(impl, shape):
    batch, heads, seq, _, head_dim = drawn_shape(5, shape)
    shape = (batch, heads, seq, seq, head_dim)
    run_case(make_case(impl, shape, seed=5, causal=True, hints=CAUSAL_HINTS))


@check("causal")
def test_causal_below_minus_1e4(impl):
    # every score near -1.3e4: keys after the query masked with a large finite value (-1e4)
    # instead of -inf score above the row's own and take its weight
    run_case(below_minus_1e4(impl, (1, 1, 77, 77, 64), seed=5, hints=CAUSAL_HINTS, causal=True))


@check("causal")
def test_causal_in_every_autotune_config(impl):
    # the loop's end and the mask must follow the config's blocks
    case = make_case(impl, (1, 1, 150, 150, 32), seed=5, causal=True, hints=CAUSAL_HINTS)
    run_in_every_autotune_config(case)


@check("scale")
@pytest.mark.parametrize(
    "shape, scale",
    [
        pytest.param((1, 2, 80, 80, 32), 0.3, id="scale=0.3"),
        pytest.param((1, 1, 80, 80, 64), 1.0, id="scale=1"),
        # every key weighs the same: a scale of 0 is a scale, not "none given"
        pytest.param((1, 1, 80, 70, 32), 0.0, id="scale=0"),
        # the default, 1 / sqrt(80), is not 1 / sqrt(128), the padded BLOCK_D's
        pytest.param((1, 1, 80, 80, 80), None, id="default-head_dim-80"),
    ],
)
def test_scale(impl, shape, scale):
    # the log-sum-exp too: it is of the scaled scores
    case = make_case(impl, shape, seed=6, scale=scale, check_lse=True)
    if scale == 1.0:
        # scores 8 times the default's: a q folded with the scale into fp16 (allowed, above)
        # rounds each by up to 2^-11 of its size, a weight by up to 1%: such a kernel was
        # 0.0055 off on the CPU, past 4e-3. Not scaling at all is off by far more
        case.tol = SCALED_Q_TOLERANCE
    run_case(case)


@check("lse")
@pytest.mark.parametrize(
    "shape, causal, q_scale",
    [
        pytest.param((1, 2, 100, 77, 32), False, 1.0, id="100x77"),
        # large scores: the max carries most of the log-sum-exp
        pytest.param((1, 1, 64, 130, 64), False, 4.0, id="64x130-q*4"),
        pytest.param((1, 2, 130, 130, 32), True, 1.0, id="130x130-causal"),
        pytest.param(
            (2, 4, 1000, 1000, 64),
            True,
            1.0,
            id="2x4x1000x1000x64-causal",
            marks=needs_gpu("too large for the CPU"),
        ),
    ],
)
def test_log_sum_exp(impl, shape, causal, q_scale):
    run_case(make_case(impl, shape, seed=7, causal=causal, q_scale=q_scale, check_lse=True))


@check("dtypes")
@pytest.mark.parametrize(
    "shape, dtype, v_shift",
    [
        pytest.param((1, 2, 100, 100, 64), torch.float16, 0.0, id="fp16"),
        # scores near 0 and v near 100 over 1000 keys: the unnormalised output passes 65504,
        # fp16's largest, so the accumulator must be fp32
        pytest.param((1, 1, 16, 1000, 32), torch.float16, 100.0, id="fp16-acc-past-65504"),
        # scores near 0 over 70,000 keys, v near 1: the running sum passes 65504, so it must be
        # fp32 too
        pytest.param((1, 1, 16, 70_000, 16), torch.float16, 1.0, id="fp16-sum-past-65504"),
        pytest.param((1, 2, 100, 100, 64), torch.bfloat16, 0.0, id="bf16", marks=needs_bf16()),
        # v near 1e5, past fp16's largest: an output stored through fp16 is inf
        pytest.param(
            (1, 1, 16, 100, 32), torch.bfloat16, 1e5, id="bf16-v-past-65504", marks=needs_bf16()
        ),
    ],
)
def test_dtypes(impl, shape, dtype, v_shift):
    q_scale = 0.01 if v_shift else 1.0
    run_case(make_case(impl, shape, dtype, seed=8, q_scale=q_scale, v_shift=v_shift))


@check("strides")
@pytest.mark.parametrize(
    "shape, packed, gaps, heads_last",
    [
        pytest.param((2, 3, 70, 70, 32), True, (0, 0), False, id="packed-qkv"),
        # lse's rows (one a head) further apart than seq_q, its batches further still, and its
        # values checked; k's rows further apart than q's, and v a view of packed qkv: no two
        # of q, k and v share their strides
        pytest.param((2, 2, 50, 90, 64), False, (24, 8), False, id="row-gaps-24/8"),
        pytest.param((2, 2, 70, 70, 32), True, (0, 0), True, id="packed-qkv-out-heads-last"),
    ],
)
def test_strides(impl, shape, packed, gaps, heads_last):
    apart = any(gaps)
    case = make_case(
        impl,
        shape,
        seed=9,
        packed=packed,
        v_packed=True if apart else None,
        gaps=gaps,
        k_gap=40 if apart else None,
        out_heads_last=heads_last,
        lse_gap=5 if apart else 0,
        lse_batch_gap=11 if apart else 0,
        check_lse=apart,
        hints=STRIDE_HINTS,
    )
    run_case(dataclasses.replace(case, through_strides=True))


@check("inside")
@pytest.mark.parametrize(
    "shape, causal",
    [
        pytest.param((1, 2, 37, 45, 48), False, id="37x45-head_dim-48"),
        pytest.param((1, 1, 70, 70, 32), True, id="70x70-causal"),
    ],
)
def test_stays_inside(impl, shape, causal):
    case = make_case(impl, shape, seed=10, causal=causal, gaps=(13, 7), check_lse=True)
    run_case(dataclasses.replace(case, past_end=True))


@check("memory")
def test_keeps_the_scores_on_chip(impl):
    # 2 x 256 x 256 scores: more bytes than q, k, v and out hold together, four times over
    batch, heads, seq, head_dim = 1, 2, 256, 16
    case = make_case(impl, (batch, heads, seq, seq, head_dim), seed=11)
    watched = run_case(case)
    scores = batch * heads * seq * seq
    biggest = max(
        (s.get("nbytes", 0) for s in watched.steps if s.get("step") == "alloc"), default=0
    )
    if isinstance(biggest, int) and biggest >= scores:
        fail(
            Kind.SCORES_IN_MEMORY,
            f"the call allocated a temporary of {biggest} bytes, as large as the {scores} "
            f"scores of {batch} x {heads} heads x {seq} queries x {seq} keys: the scores, or "
            "something of their size, went to memory. Keep each block of scores in the "
            "program that computes it (tl.dot(q, k^T), the online softmax, then tl.dot(p, v)), "
            "and store only out and lse.",
            case.name,
        )


@check("launches")
def test_launches_kernel(impl):
    run_case(make_case(impl, (1, 2, 64, 64, 32), seed=12))


@check("launches")
def test_writes_out_given_alone(impl):
    # out= without lse=: the call writes into out and makes lse (one that makes both whenever
    # either is missing leaves out as it was)
    case = make_case(impl, (1, 2, 64, 64, 32), seed=14)
    lse = dataclasses.replace(case.extra["lse"], given=False)
    run_case(dataclasses.replace(case, extra={"lse": lse}))


@check("launches")
@pytest.mark.parametrize(
    "dtype, packed",
    [
        pytest.param(torch.float16, False, id="fp16"),
        pytest.param(torch.bfloat16, False, id="bf16", marks=needs_bf16()),
        # q a view of packed qkv: the new out is contiguous, its strides are not q's
        pytest.param(torch.float16, True, id="packed-qkv"),
    ],
)
def test_allocates_its_results(impl, dtype, packed):
    own_strides = (
        "out= was not given: the new out is contiguous and q is a view of packed qkv, so "
        "their strides differ: pass q's strides for reading q and out's for writing out."
    )
    hints = dataclasses.replace(HINTS, values=own_strides) if packed else HINTS
    case = make_case(impl, (1, 2, 64, 64, 32), dtype, seed=12, packed=packed, check_lse=True)
    # then a second call on other inputs: the first call's results must still be its own
    then = make_case(impl, (1, 2, 64, 64, 32), dtype, seed=13, packed=packed, check_lse=True)
    check_allocates(dataclasses.replace(case, hints=hints), then)


@check("compiles")
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_compiles_for_gpu(impl, causal):
    run_case(make_case(impl, (1, 1, 80, 80, 64), seed=13, causal=causal))


@check("int64")
@pytest.mark.parametrize(
    "tensor",
    [
        pytest.param("q", id="q-batch-stride-2^31", marks=needs_gpu("4.3 GB q")),
        pytest.param("out", id="out-batch-stride-2^31", marks=needs_gpu("4.3 GB out")),
    ],
)
def test_offsets_past_2_31(impl, tensor):
    # 3 batches of one head, 64 queries of 64, 2^30 + 4096 elements apart: the third starts
    # past 2^31, though the stride itself fits in int32 (a larger one reaches the kernel as int64)
    advice = (
        f"the third batch of {tensor} starts past 2^31 elements, where batch * "
        f"stride_{tensor[0]}b wraps negative in int32: compute the batch's and the head's "
        "offsets in int64, batch.to(tl.int64) * stride."
    )
    hints = dataclasses.replace(HINTS, outside=advice, unwritten=advice, values=advice)
    with big_gpu_memory(12e9):  # no local holds the case, so its buffers go back after it
        case = make_case(impl, (3, 1, 64, 64, 64), seed=14, hints=hints)
        far = (2**30 + 4096, 4096, 64, 1)
        if tensor == "q":
            q = case.inputs["q"].tensor
            case.inputs["q"] = Guarded.holding(q, strides=far)
        else:
            case.out = Guarded(
                tuple(case.out.tensor.shape), torch.float16, output=True, strides=far
            )
        run_case(dataclasses.replace(case, through_strides=True, fault_advice=advice))


# ---------------------------------------------------------------------------------------------
# The benchmark, against torch's scaled_dot_product_attention (its flash backend on a GPU)
# ---------------------------------------------------------------------------------------------


def bench_shape(batch: int, heads: int, seq: int, head_dim: int, causal: bool) -> Shape:
    params = {"batch": batch, "heads": heads, "seq": seq, "head_dim": head_dim, "causal": causal}
    name = f"{batch}x{heads}x{seq}x{head_dim}" + (" causal" if causal else "")
    return Shape(name, seq, params, series=f"d={head_dim}" + (" causal" if causal else ""))


def bench_inputs(shape: Shape) -> tuple:
    p = shape.params
    size = (p["batch"], p["heads"], p["seq"], p["head_dim"])
    q, k, v = (torch.randn(size, device="cuda", dtype=torch.float16) for _ in range(3))
    return q, k, v, p["causal"]


def attention_flops(shape: Shape) -> float:
    """Two matmuls of seq x seq x head_dim per head, 2 operations a multiply-add; half of them
    with the causal mask (the blocks a kernel skips)."""
    p = shape.params
    flops = 4 * p["batch"] * p["heads"] * p["seq"] ** 2 * p["head_dim"]
    return flops / 2 if p["causal"] else flops


def attention_bytes(shape: Shape) -> float:
    """q, k and v read once, out written once, in fp16."""
    p = shape.params
    return 4 * 2 * p["batch"] * p["heads"] * p["seq"] * p["head_dim"]


BENCH = Bench(
    entry="attention",
    shapes=[bench_shape(**p) for p in SPEC.bench_shapes],
    make_inputs=bench_inputs,
    torch_fn=lambda q, k, v, causal: torch.nn.functional.scaled_dot_product_attention(
        q, k, v, is_causal=causal
    ),
    torch_name="torch SDPA (flash)",
    unit="TFLOP/s",
    flops=attention_flops,
    bytes_moved=attention_bytes,
    compute="tensor",
    tolerance=lambda s: TOLERANCES[torch.float16],
    size_name="sequence length",
    compared=lambda result: result[0],  # out of (out, lse)
)
