"""Mistakes recognised by their results: the K loop's (an accumulator reset each step, the last
block left out, a loop over another size, pointers stepped without the stride, rows read at
another distance, split-K sums stored rather than added)."""

import torch

from drills.judge.testing.compare import Tolerance, compare, matches_reads, wrong_elements
from drills.judge.testing.guarded import Guarded
from drills.judge.testing.record import Launch


def stepped_by(t: torch.Tensor, step: int, k_dim: int, moved: int) -> torch.Tensor:
    """Where a matmul reads operand t when its pointers move `step` times `moved` elements at
    each step of K instead of `step` times its stride along K (moved is 1, or the other
    operand's stride along K): k_dim is 1 for a [M, K], 0 for b [K, N]."""
    k = torch.arange(t.shape[k_dim], device=t.device)
    other = torch.arange(t.shape[1 - k_dim], device=t.device)
    along_k, across = t.stride()[k_dim], t.stride()[1 - k_dim]
    offsets = (k % step * along_k + k // step * step * moved)[None, :] + (other * across)[:, None]
    return offsets if k_dim == 1 else offsets.t()


def with_row_stride(t: torch.Tensor, row_stride: int) -> torch.Tensor:
    """Where a kernel reads the 2-D t when it takes its rows to lie `row_stride` apart."""
    return with_strides(t, row_stride, t.stride(1))


def with_strides(t: torch.Tensor, row_stride: int, col_stride: int) -> torch.Tensor:
    """Where a kernel reads the 2-D t when it takes these for its strides."""
    rows = torch.arange(t.shape[0], device=t.device)[:, None]
    cols = torch.arange(t.shape[1], device=t.device)[None, :]
    return rows * row_stride + cols * col_stride


def k_loop_mistake(
    a: torch.Tensor,
    b: torch.Tensor,
    tol: Tolerance,
    block_k: str,
    operands: tuple[Guarded, Guarded] | None = None,
):
    """A matmul case's diagnose(): it recognises K-loop mistakes by their results. acc set to
    zeros inside the loop leaves only the last block of K; a loop that rounds K down leaves out
    the last, partial block; a row stride taken from another size, or a pointer step without
    the stride along K, reads the wrong elements of `operands` (the guarded a and b); split-K
    programs that store, not add, leave one split's sum each. `block_k` names the launch's K
    block constexpr (BLOCK_K, as split-K kernels in the style of triton.ops.matmul name it, is
    tried next)."""
    a, b = a.double(), b.double()
    K = a.shape[1]

    def diagnose(launch: Launch | None, out: torch.Tensor) -> str:
        wrong_rows = row_stride_mistake(out)
        if wrong_rows:
            return wrong_rows
        args = launch.args if launch else {}
        name = next((n for n in (block_k, "BLOCK_K") if isinstance(args.get(n), int)), block_k)
        step = args.get(name)
        rounded = k_taken_for_a_multiple(out, step)
        if rounded:
            return rounded
        if not isinstance(step, int) or not 0 < step < K:
            return ""
        # first: where one split's store won everywhere, c is also the first or the last
        # blocks of K alone, which the K loop's own mistakes below leave too
        splits = args.get("SPLIT_K")
        if isinstance(splits, int) and splits > 1 and one_split_each(out, splits, step):
            return (
                f"each element of c holds the sum over one split of K only: the {splits} "
                "programs that share a tile (SPLIT_K) each stored their partial sum, and the "
                "last store won. Add the partial sums instead, with tl.atomic_add into a c "
                "that starts at zero."
            )
        last = (K - 1) // step * step  # where the last block of K starts
        if compare(out, (a[:, last:] @ b[last:, :]).half(), tol) is None:
            return (
                f"c holds only the last block of K (k from {last} on): acc is set to zeros "
                "inside the K loop. Set it to zeros once, before the loop."
            )
        whole = K // step * step
        if whole < K and compare(out, (a[:, :whole] @ b[:whole, :]).half(), tol) is None:
            return (
                f"c leaves out the last, partial block of K (k from {whole} on): the K loop "
                f"must run tl.cdiv(K, {name}) times, not K // {name}."
            )
        for size, extent in (("M", a.shape[0]), ("N", b.shape[1])):
            end = -(-extent // step) * step  # where a loop over that size's blocks stops
            if end < K and compare(out, (a[:, :end] @ b[:end, :]).half(), tol) is None:
                return (
                    f"c holds the sum over k < {end} only: the K loop ran tl.cdiv({size}, "
                    f"{name}) times ({size} = {extent}). It must run over K: tl.cdiv(K, {name})."
                )
        return stepped_mistake(out, step, name)

    def k_taken_for_a_multiple(out: torch.Tensor, step) -> str:
        """Whether c is the sum over K rounded down to a multiple of 8 or 16, as a kernel told
        K is one computes it (where that is also where K's last whole block ends, the K loop's
        own message says it)."""
        whole = K // step * step if isinstance(step, int) and step > 0 else None
        for multiple in (8, 16):
            end = K // multiple * multiple
            left_out = 0 < end < K and end != whole
            if left_out and compare(out, (a[:, :end] @ b[:end, :]).half(), tol) is None:
                return (
                    f"c holds the sum over k < {end} only, K = {K} rounded down to a multiple "
                    f"of {multiple}: the kernel treats K as a multiple of {multiple} "
                    "(known_multiple, tl.multiple_of). K can be any size: promise only what "
                    "the host checked, K's own size included."
                )
        return ""

    def stepped_mistake(out: torch.Tensor, step: int, name: str) -> str:
        """Which operand's pointers moved by another number than its stride along K at each
        step of K: by elements, or by the other operand's stride."""
        if not operands:
            return ""
        # a's K is its columns, b's its rows
        along_k = {"a": operands[0].tensor.stride(1), "b": operands[1].tensor.stride(0)}
        for name_of, g, k_dim in zip("ab", operands, (1, 0), strict=True):
            other = "b" if name_of == "a" else "a"
            stride = f"stride_{name_of}k"
            for moved, how in (
                (1, f"{step} elements"),
                (along_k[other], f"{step} steps of {other}'s stride along K ({along_k[other]})"),
            ):
                if moved == along_k[name_of]:
                    continue  # that is a step along K
                if reads_explain(out, name_of, g, stepped_by(g.tensor, step, k_dim, moved)):
                    return (
                        f"the pointers into {name_of} moved {how} at each step of K, not {step} "
                        f"steps of {name_of}'s own stride along K ({along_k[name_of]} here): "
                        f"{name_of}_ptrs += {name} * {stride}."
                    )
        return ""

    def reads_explain(out: torch.Tensor, name_of: str, g: Guarded, offsets: torch.Tensor) -> bool:
        """Whether c is the product with operand `name_of` read at these offsets from its first
        element. The rows of c whose reads of a left its guarded buffer (the columns, for b)
        are left out: on a GPU they read whatever lies past it."""
        eff, past = g.read_at(offsets), g.past_the_ends(offsets)
        if name_of == "a":
            product, unknown = eff @ b, past.any(1)[:, None]
        else:
            product, unknown = a @ eff, past.any(0)[None, :]
        return matches_reads(out, product.half(), tol, unknown.expand(out.shape))

    def row_stride_mistake(out: torch.Tensor) -> str:
        """Which operand's rows were read at another distance apart (M, N or K, or its width,
        where it lies in a wider tensor), if one was."""
        return length_taken_for_the_stride(out) or stride_taken_for_a_multiple(out)

    def stride_taken_for_a_multiple(out: torch.Tensor) -> str:
        """Which operand was read with one of its strides rounded down to a multiple of 8 or
        16, as a kernel told (known_multiple, tl.multiple_of) that it is one computes it."""
        for name_of, g in zip("ab", operands or (), strict=False):
            t = g.tensor
            for dim, along in enumerate(("M", "K") if name_of == "a" else ("K", "N")):
                stride = t.stride(dim)
                for multiple in (8, 16):
                    strides = list(t.stride())
                    strides[dim] = stride // multiple * multiple
                    if stride % multiple == 0 or t.shape[dim] == 1:
                        continue
                    if reads_explain(out, name_of, g, with_strides(t, *strides)):
                        left_out = (
                            f" (or its offsets along {along} were left out)"
                            if strides[dim] == 0
                            else ""
                        )
                        return (
                            f"{name_of} was read with a stride along {along} of {strides[dim]}, "
                            f"its stride {stride} rounded down to a multiple of {multiple}"
                            f"{left_out}: the kernel was told stride_{name_of}{along.lower()} "
                            f"is a multiple of {multiple} (known_multiple, tl.multiple_of), and "
                            "it is not. Check the stride the hint is about, on the host, before "
                            "you promise it."
                        )
        return ""

    def length_taken_for_the_stride(out: torch.Tensor) -> str:
        M, N = a.shape[0], b.shape[1]
        for name_of, g in zip("ab", operands or (), strict=False):
            t = g.tensor
            true = t.stride(0)
            if t.stride(1) != 1:
                continue  # a transposed view: its rows are not where a row length matters
            for guess in sorted({M, N, K, t.shape[1]} - {true}):
                if reads_explain(out, name_of, g, with_row_stride(t, guess)):
                    wider = ", inside a wider tensor" if true != t.shape[1] else ""
                    return (
                        f"the rows of {name_of} were read {guess} elements apart, but they lie "
                        f"{true} apart ({name_of} is {t.shape[0]} x {t.shape[1]}{wider}): row r "
                        f"of {name_of} starts at r * {true}, its row stride, which square "
                        "matrices cannot tell from the others."
                    )
        return ""

    def one_split_each(out: torch.Tensor, splits: int, step: int) -> bool:
        """Whether every element equals the partial sum of one of the splits, which take every
        splits-th block of K in turn (as triton.ops.matmul's did) or a contiguous share."""
        blocks = torch.arange(K, device=a.device) // step
        share = -(-K // splits)
        for of_split in (blocks % splits, torch.arange(K, device=a.device) // share):
            matched = torch.zeros(out.shape, dtype=torch.bool, device=out.device)
            for z in range(splits):
                ks = of_split == z
                matched |= ~wrong_elements(out, (a[:, ks] @ b[ks, :]).half(), tol)
            if bool(matched.all()):
                return True
        return False

    return diagnose
