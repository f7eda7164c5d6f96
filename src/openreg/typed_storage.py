"""``TypedStorage``: PyTorch's deprecated typed view of a tensor's memory (``tensor.storage()``), a storage read
as elements of one dtype over an ``UntypedStorage`` -- all of it, whatever the tensor's offset and shape. Getting
one warns once (``TypedStorage is deprecated``), as PyTorch does.

>>> import openreg, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     s = openreg.arange(6.0)[2:].storage()
>>> s.size(), s.element_size(), s.dtype, s[0], s.tolist()[-1]
(6, 4, openreg.float32, 0.0, 5.0)
"""
from __future__ import annotations

import warnings

__all__ = ["TypedStorage"]

_warned = [False]


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    from ._runtime_flags import is_warn_always_enabled
    if _warned[0] and not is_warn_always_enabled():
        return
    _warned[0] = True
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=stacklevel + 1)


class TypedStorage:
    """Elements of ``dtype`` over an ``UntypedStorage`` (``wrap_storage``)."""

    is_sparse = False

    def __init__(self, *, wrap_storage, dtype) -> None:
        self._untyped_storage = wrap_storage
        self.dtype = dtype

    # -- shape and memory --------------------------------------------------------------------------------
    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def element_size(self) -> int:
        return self.dtype.itemsize

    def size(self) -> int:
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def untyped(self):
        return self._untyped_storage

    def is_pinned(self, device=None) -> bool:
        return self._untyped_storage.is_pinned(device)

    def type(self, dtype=None, non_blocking: bool = False):
        if dtype is not None:
            raise NotImplementedError("openreg: TypedStorage.type(dtype) conversion is not implemented")
        from .legacy_tensor_types import _type_name
        return _type_name(self.dtype, self.device.type).replace("Tensor", "Storage")

    # -- elements ------------------------------------------------------------------------------------------
    def _tensor(self):
        """A 1-D tensor over all of the storage's elements (shares memory)."""
        from .operators.factories import empty
        t = empty(0, dtype=self.dtype, device=self.device)
        return t.set_(self._untyped_storage, 0, (self.size(),), (1,))

    def _index(self, idx: int) -> int:
        if not isinstance(idx, int) or isinstance(idx, bool):
            if isinstance(idx, slice):
                raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")  # noqa: TRY004 - torch's
            raise RuntimeError(f"can't index a {type(self).__name__} with {type(idx).__name__}")  # noqa: TRY004
        n = self.size()
        if not -n <= idx < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return idx % n if n else idx

    def __getitem__(self, idx):
        return self._tensor()[self._index(idx)].item()

    def __setitem__(self, idx, value) -> None:
        self._tensor()[self._index(idx)] = value

    def __iter__(self):
        return iter(self.tolist())

    def tolist(self) -> list:
        return self._tensor().tolist()

    def fill_(self, value):
        self._tensor().fill_(value)
        return self

    def cpu(self):
        if self.device.type == "cpu":
            return self
        return TypedStorage(wrap_storage=self._untyped_storage.cpu(), dtype=self.dtype)

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        head = f"[openreg.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size {self.size()}]"
        return f"{body}\n{head}" if body else head


def tensor_storage(self) -> TypedStorage:
    """``Tensor.storage()``: the tensor's memory as a ``TypedStorage`` of its dtype (deprecated, as in PyTorch)."""
    _warn_typed_storage_removal()
    return TypedStorage(wrap_storage=self.untyped_storage(), dtype=self.dtype)
