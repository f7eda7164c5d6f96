"""Variable-length sequences (``torch.nn.utils.rnn``): ``pad_sequence``/``unpad_sequence``, the
``PackedSequence`` layout (time-major data of the sequences sorted by decreasing length, ``batch_sizes[t]``
sequences still running at step ``t``) with ``pack_padded_sequence``, ``pad_packed_sequence``,
``pack_sequence`` and ``unpack_sequence``. Written with differentiable ops (cat, split, index_select), so
gradients flow through packing and padding; ``nn.RNN``/``LSTM``/``GRU`` accept a ``PackedSequence``.

>>> import openreg
>>> from openreg.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
>>> padded = pad_sequence([openreg.tensor([1, 2]), openreg.tensor([3, 4, 5])], batch_first=True)
>>> padded.tolist()
[[1, 2, 0], [3, 4, 5]]
>>> packed = pack_padded_sequence(padded, [2, 3], batch_first=True, enforce_sorted=False)
>>> packed.data.tolist(), packed.batch_sizes.tolist()
([3, 1, 4, 2, 5], [2, 2, 1])
>>> out, lengths = pad_packed_sequence(packed, batch_first=True)
>>> out.tolist() == padded.tolist(), lengths.tolist()
(True, [2, 3])
"""
from __future__ import annotations

import itertools
from typing import NamedTuple

import openreg
from openreg import Tensor

__all__ = ["PackedSequence", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence", "pad_sequence",
           "unpack_sequence", "unpad_sequence"]


class PackedSequence(NamedTuple):
    """Packed sequences: ``data`` (sum of lengths, *), ``batch_sizes`` (int64 on the CPU), and the
    permutations to and from decreasing-length order (None when the input was already sorted)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data`` converted (and the indices moved to its device); ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return PackedSequence(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(dtype=openreg.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=openreg.float32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _invert(permutation: Tensor) -> Tensor:
    inverse = openreg.empty_like(permutation)
    inverse[permutation] = openreg.arange(permutation.numel(), device=permutation.device)
    return inverse


def _lengths_list(lengths) -> list[int]:
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D tensor, but got a {lengths.dim()}D tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack tensors of shape ``(L_i, *)`` into ``(L_max, B, *)`` (``(B, L_max, *)`` with ``batch_first``),
    filling with ``padding_value`` after (``padding_side="right"``) or before (``"left"``) each sequence.

    >>> import openreg
    >>> pad_sequence([openreg.ones(1), openreg.ones(2)], padding_side="left", padding_value=-1.0).tolist()
    [[-1.0, 1.0], [1.0, 1.0]]
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.size(0) for s in sequences)
    rows = []
    for s in sequences:
        missing = longest - s.size(0)
        if missing:
            fill = openreg.full((missing, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = openreg.cat([s, fill] if padding_side == "right" else [fill, s])
        rows.append(s)
    return openreg.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list[Tensor]:
    """The sequences of a right-padded batch, cut to their ``lengths``.

    >>> import openreg
    >>> [t.tolist() for t in unpad_sequence(openreg.tensor([[1, 2], [3, 0]]), [2, 1], batch_first=True)]
    [[1, 2], [3]]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of ``lengths``.
    With ``enforce_sorted=False`` the lengths may come in any order (the permutation is kept).

    >>> import openreg
    >>> pack_padded_sequence(openreg.tensor([[1, 4], [2, 0], [3, 0]]), [3, 1]).data.tolist()
    [1, 4, 2, 3]
    """
    if isinstance(lengths, Tensor) and lengths.device.type != "cpu":
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got 1D {lengths.device.type} "
                           f"{lengths.dtype.scalar_name} tensor")
    sizes = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    sorted_indices = None
    if enforce_sorted:
        if any(a < b for a, b in itertools.pairwise(sizes)):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
        sizes = [sizes[i] for i in order]
        sorted_indices = openreg.tensor(order, dtype=openreg.int64, device=input.device)
        input = input.index_select(1, sorted_indices)
    if sizes and sizes[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if sizes and sizes[0] > input.size(0):
        raise RuntimeError(f"pack_padded_sequence: a length ({sizes[0]}) exceeds the padded length "
                           f"({input.size(0)})")
    batch_sizes = [sum(1 for n in sizes if n > t) for t in range(sizes[0] if sizes else 0)]
    data = openreg.cat([input[t, :b] for t, b in enumerate(batch_sizes)])
    unsorted = None if sorted_indices is None else _invert(sorted_indices)
    return PackedSequence(data, openreg.tensor(batch_sizes, dtype=openreg.int64), sorted_indices, unsorted)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The padded batch of a ``PackedSequence`` and the lengths (int64, CPU), in the original batch order.

    >>> import openreg
    >>> packed = pack_padded_sequence(openreg.tensor([[1, 4], [2, 0]]), [2, 1])
    >>> [t.tolist() for t in pad_packed_sequence(packed, padding_value=9)]
    [[[1, 4], [2, 9]], [2, 1]]
    """
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps, batch = len(batch_sizes), (batch_sizes[0] if batch_sizes else 0)
    if total_length is not None and total_length < steps:
        raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                         f"but got total_length={total_length} and max sequence length being {steps}")
    rows = []
    for piece, b in zip(data.split(batch_sizes), batch_sizes):
        if b < batch:
            piece = openreg.cat([piece, openreg.full((batch - b, *data.shape[1:]), padding_value, dtype=data.dtype,
                                                     device=data.device)])
        rows.append(piece)
    extra = (total_length or steps) - steps
    if extra:
        rows += [openreg.full((batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)] * extra
    padded = openreg.stack(rows) if rows else openreg.empty(0, batch, *data.shape[1:], dtype=data.dtype,
                                                          device=data.device)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(batch)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, openreg.tensor(lengths, dtype=openreg.int64)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of ``(L_i, *)`` tensors.

    >>> import openreg
    >>> pack_sequence([openreg.tensor([1]), openreg.tensor([2, 3])], enforce_sorted=False).data.tolist()
    [2, 1, 3]
    """
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a ``PackedSequence``, in the original order.

    >>> import openreg
    >>> [t.tolist() for t in unpack_sequence(pack_sequence([openreg.tensor([1]), openreg.tensor([2, 3])], False))]
    [[1], [2, 3]]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def pack_like(padded: Tensor, like: PackedSequence) -> PackedSequence:
    """``padded`` (T, B, *) in the original batch order, packed with ``like``'s batch sizes and permutation."""
    if like.sorted_indices is not None:
        padded = padded.index_select(1, like.sorted_indices)
    sizes = [int(b) for b in like.batch_sizes.tolist()]
    data = openreg.cat([padded[t, :b] for t, b in enumerate(sizes)])
    return PackedSequence(data, like.batch_sizes, like.sorted_indices, like.unsorted_indices)
