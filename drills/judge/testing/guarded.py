"""Canary-padded buffers: a tensor inside a larger buffer whose padding holds a canary, so that
writes outside the tensor, elements never written and unmasked reads that reach the result all
show."""

import math

import torch

from drills.judge.remote import shared_empty
from drills.judge.testing.suite import device

# ---------------------------------------------------------------------------------------------
# Canary-padded buffers
# ---------------------------------------------------------------------------------------------

_BITS = {
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
    torch.float64: torch.int64,
    torch.int32: torch.int32,
    torch.int64: torch.int64,
}

# Quiet NaNs with distinct payloads, so a padding NaN read into a result is told apart from
# an output element that was never written. Integers get values far outside any test's range.
_INPUT_CANARY = {
    torch.float32: 0x7FC0_0A11,
    torch.float16: 0x7E11,
    torch.bfloat16: 0x7FC1,
    torch.float64: 0x7FF8_0000_0000_0A11,
}
_OUTPUT_CANARY = {
    torch.float32: 0x7FDE_AD00,
    torch.float16: 0x7E5A,
    torch.bfloat16: 0x7FDA,
    torch.float64: 0x7FFD_EAD0_0000_0000,
}
_INT_INPUT_CANARY = 0x7A3A_3A3A
_INT_OUTPUT_CANARY = -0x7C3C_3C3C


def canary_bits(dtype: torch.dtype, output: bool) -> int:
    if dtype.is_floating_point:
        return (_OUTPUT_CANARY if output else _INPUT_CANARY)[dtype]
    return _INT_OUTPUT_CANARY if output else _INT_INPUT_CANARY


def bits_of(t: torch.Tensor) -> torch.Tensor:
    return t.view(_BITS[t.dtype])


# Canary elements before and after every guarded tensor: more than a block is wide, so a store
# that runs a whole block past the end lands in the canary, not in someone else's memory.
GUARD = 8192


def gapped_strides(shape: tuple[int, ...], row_gap: int) -> tuple[int, ...]:
    """The strides of a contiguous tensor whose rows (of its last dimension) are row_gap
    elements further apart; a 1-D tensor is a column of rows of one, row_gap + 1 apart."""
    if len(shape) == 1:
        return (1 + row_gap,)
    strides = [1, shape[-1] + row_gap]
    for n in reversed(shape[1:-1]):
        strides.append(strides[-1] * n)
    return tuple(reversed(strides))


class Guarded:
    """A tensor living inside a bigger buffer filled with a canary.

    `row_gap` puts extra canary elements between the rows of a tensor (a row stride larger
    than its width; for more than 2 dimensions, the rows of the last two), so a kernel that
    ignores the row stride reads or writes the gaps. `transposed` stores a 2-D tensor column by
    column, so that `tensor` is a transposed view (like `w.t()`), with a row stride of 1. On a
    1-D tensor, `row_gap` puts canaries between its elements: a stride of 1 + row_gap, like
    v[::2]. `strides` lays the tensor out with these strides instead (every one positive, as
    in a view of a bigger tensor: q of a packed qkv), canary wherever no element lies.
    """

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: torch.dtype,
        *,
        output: bool,
        row_gap: int = 0,
        transposed: bool = False,
        strides: tuple[int, ...] | None = None,
        dev: str | None = None,
    ):
        if transposed and len(shape) != 2:
            raise ValueError(f"only a 2-D tensor can be transposed, got shape {shape}")
        self.made_with = {
            "shape": shape,
            "dtype": dtype,
            "output": output,
            "row_gap": row_gap,
            "transposed": transposed,
            "strides": strides,
            "dev": dev,
        }
        shape = tuple(reversed(shape)) if transposed else tuple(shape)
        if strides is None:
            strides = gapped_strides(shape, row_gap)
        if len(strides) != len(shape) or any(s < 1 for s in strides):
            raise ValueError(f"strides {strides} do not lay out a tensor of shape {shape}")
        # buffer elements from the tensor's first element to its last, + 1
        span = 0
        if all(shape):
            span = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
        self.span = span
        self.canary = canary_bits(dtype, output)
        self.buffer = shared_empty(GUARD + span + GUARD, dtype, dev or device())
        bits_of(self.buffer).fill_(self.canary)
        self.tensor = self.buffer.as_strided(shape, strides, GUARD)
        inside = torch.zeros(self.buffer.shape, dtype=torch.bool, device=self.buffer.device)
        inside.as_strided(shape, strides, GUARD).fill_(True)
        self._inside = inside
        if transposed:
            self.tensor = self.tensor.t()

    @classmethod
    def holding(cls, values: torch.Tensor, **kwargs) -> "Guarded":
        """An input: a guarded copy of `values`, whose padding reads as NaN."""
        g = cls(tuple(values.shape), values.dtype, output=False, dev=values.device.type, **kwargs)
        g.tensor.copy_(values)
        return g

    def written(self, before: torch.Tensor | None = None) -> torch.Tensor:
        """Boolean mask, shaped like the buffer, of the elements that no longer hold the canary
        (or the bits of `before`, a snapshot)."""
        return bits_of(self.buffer) != (self.canary if before is None else before)

    def read_at(self, offsets: torch.Tensor) -> torch.Tensor:
        """The buffer's values, in float64, at these offsets from the tensor's first element:
        the padding's NaN included, NaN past the buffer's ends (see past_the_ends)."""
        at = GUARD + offsets
        values = self.buffer[at.clamp(0, self.buffer.numel() - 1)].double()
        return torch.where(self.past_the_ends(offsets), math.nan, values)

    def past_the_ends(self, offsets: torch.Tensor) -> torch.Tensor:
        """Which of these offsets from the tensor's first element fall outside the buffer, on
        memory the judge does not own: a GPU reads whatever lies there, another tensor's
        values or its padding."""
        at = GUARD + offsets
        return (at < 0) | (at >= self.buffer.numel())

    def layout(self, *strides: int) -> torch.Tensor:
        """Boolean mask, shaped like the buffer, of where the elements of a tensor of this
        shape would lie with these strides (those that fall inside the buffer)."""
        dev = self.buffer.device
        offsets = torch.full((), GUARD, device=dev)
        for size, stride in zip(self.tensor.shape, strides, strict=True):
            offsets = offsets[..., None] + torch.arange(size, device=dev) * stride
        offsets = offsets.flatten()
        mask = torch.zeros(self.buffer.shape, dtype=torch.bool, device=dev)
        mask[offsets[(offsets >= 0) & (offsets < mask.numel())]] = True
        return mask

    def like(self) -> "Guarded":
        """A new output of the same shape, dtype and layout, all canary."""
        return Guarded(**self.made_with)

    def twin(self) -> "Guarded":
        """Another of the same layout holding the same bits, padding included, in a buffer of
        its own: what a second call reads outside it is then told apart from the first's."""
        twin = Guarded(**self.made_with)
        twin.buffer.copy_(self.buffer)
        return twin

    def snapshot(self) -> torch.Tensor:
        return bits_of(self.buffer).clone()

    def changed_since(self, snapshot: torch.Tensor) -> int:
        return int((bits_of(self.buffer) != snapshot).sum())

    def written_outside(self) -> list[int]:
        """Buffer offsets outside the tensor whose canary was overwritten, relative to element 0."""
        hit = self.written() & ~self._inside
        return [i - GUARD for i in torch.nonzero(hit).flatten().tolist()]

    def never_written(self) -> torch.Tensor:
        """Boolean mask, shaped like the tensor, of elements that still hold the canary."""
        return bits_of(self.tensor) == self.canary

    def like_tensor(self, per_element: torch.Tensor) -> torch.Tensor:
        """A table of one entry per buffer element, seen as the tensor is seen in the buffer."""
        return per_element.as_strided(self.tensor.shape, self.tensor.stride(), GUARD)

    def reset(self) -> None:
        """Every element the canary again, as before a call."""
        bits_of(self.buffer).fill_(self.canary)
