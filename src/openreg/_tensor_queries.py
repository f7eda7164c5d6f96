"""Small Tensor methods PyTorch programs call: ``is_same_size``, ``is_neg``/``resolve_neg``,
``unsafe_chunk``/``unsafe_split``/``unsafe_split_with_sizes`` and ``record_stream``.

openreg has no lazy negation bit (``neg`` computes into new memory), so ``is_neg()`` is False and ``resolve_neg()``
returns the tensor itself, as PyTorch does for a tensor without the bit. The ``unsafe_`` splits are PyTorch's
splits without view tracking; openreg returns the tracked views (the same memory and values, and in-place changes
of a piece stay correct for autograd, which is what the unsafe variants give up).

>>> import openreg
>>> a = openreg.zeros(2, 3)
>>> a.is_same_size(openreg.ones(2, 3)), a.is_neg(), a.resolve_neg() is a
(True, False, True)
>>> [p.shape for p in openreg.unsafe_chunk(a, 3, dim=1)]
[openreg.Size([2, 1]), openreg.Size([2, 1]), openreg.Size([2, 1])]
"""
from __future__ import annotations

from .tensor import Tensor

__all__ = ["is_neg", "is_same_size", "record_stream", "resolve_neg", "unsafe_chunk", "unsafe_split",
           "unsafe_split_with_sizes"]


def _check_tensor(fn: str, name: str, position: int, value) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether ``input`` and ``other`` have the same shape.

    >>> import openreg
    >>> openreg.is_same_size(openreg.zeros(2), openreg.zeros(1, 2))
    False
    """
    _check_tensor("is_same_size", "other", 1, other)
    return tuple(input.shape) == tuple(other.shape)


def is_neg(input: Tensor) -> bool:
    """False: openreg's ``neg`` computes into new memory, so no tensor carries PyTorch's lazy negation bit.

    >>> import openreg
    >>> openreg.is_neg(-openreg.ones(1))
    False
    """
    return False


def resolve_neg(input: Tensor) -> Tensor:
    """The tensor itself: there is no negation bit to materialise (see ``is_neg``).

    >>> import openreg
    >>> x = openreg.ones(2)
    >>> openreg.resolve_neg(x) is x
    True
    """
    return input


def unsafe_split(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split(input, split_size, dim)`` (PyTorch's variant without view tracking; see the module docstring).

    >>> import openreg
    >>> [p.tolist() for p in openreg.unsafe_split(openreg.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return tuple(input.split(split_size, dim))


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split(input, split_sizes, dim)`` with a list of sizes (PyTorch's variant without view tracking).

    >>> import openreg
    >>> [p.tolist() for p in openreg.unsafe_split_with_sizes(openreg.arange(4), [1, 3])]
    [[0], [1, 2, 3]]
    """
    return tuple(input.split(list(split_sizes), dim))


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk(input, chunks, dim)`` (PyTorch's variant without view tracking).

    >>> import openreg
    >>> [p.tolist() for p in openreg.unsafe_chunk(openreg.arange(4), 2)]
    [[0, 1], [2, 3]]
    """
    return tuple(input.chunk(chunks, dim))


def _tensor_unsafe_split(self: Tensor, split_size, dim: int = 0) -> tuple:
    """``Tensor.unsafe_split``: an int size or, as ``Tensor.split``, a list of sizes."""
    if isinstance(split_size, int) and not isinstance(split_size, bool):
        return unsafe_split(self, split_size, dim)
    return unsafe_split_with_sizes(self, split_size, dim)


def record_stream(self: Tensor, stream) -> None:
    """Mark this device tensor's memory as used by ``stream``: when the tensor's storage is freed, its block goes
    back to the caching allocator only once the work queued on ``stream`` so far has completed (PyTorch's
    ``record_stream``), so a tensor made on one stream and consumed on another is not reused too early.

    >>> import openreg
    >>> dev = openreg.utils.get_privateuse1_backend_name()
    >>> s = getattr(openreg, dev).Stream()
    >>> x = openreg.ones(4, device=dev)
    >>> x.record_stream(s)
    """
    from .devices import PRIVATEUSE1
    if self._storage is None or self._storage.device._type != PRIVATEUSE1:
        kind = "Meta" if self._storage is None or self._storage.device.type == "meta" else "CPU"
        raise NotImplementedError(f"Could not run 'aten::record_stream' with arguments from the '{kind}' backend. "
                                  f"record_stream needs a tensor on the device "
                                  f"(it marks device memory as used by a stream).")
    if not hasattr(stream, "record_event") or not hasattr(stream, "device_index"):
        raise TypeError(f"record_stream(): argument 's' must be Stream, not {type(stream).__name__}")
    if stream.device_index != self._storage.device.index:
        raise RuntimeError(f"record_stream: the stream is on device {stream.device_index}, the tensor on "
                           f"{self._storage.device}")
    from . import privateuse1_hooks
    privateuse1_hooks.get_hooks().record_stream(self._storage, stream)


METHODS = {"is_same_size": is_same_size, "is_neg": is_neg, "resolve_neg": resolve_neg, "unsafe_chunk": unsafe_chunk,
           "unsafe_split": _tensor_unsafe_split, "unsafe_split_with_sizes": unsafe_split_with_sizes,
           "record_stream": record_stream}
FUNCTIONS = ("is_same_size", "is_neg", "resolve_neg", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes")


def publish(namespace) -> None:
    """Set the functions on ``namespace`` (the ``openreg`` module) where it has no attribute of that name."""
    for name in FUNCTIONS:
        if not hasattr(namespace, name):
            setattr(namespace, name, globals()[name])
