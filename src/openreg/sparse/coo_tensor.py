"""The sparse COO tensor: ``indices`` (int64, ``sparse_dim x nnz``) and ``values`` (``nnz x dense sizes``), two
dense tensors on one device, standing for the tensor of ``size`` that is zero except at those indices (duplicates
add up). As in PyTorch it is a ``Tensor`` whose layout is ``openreg.sparse_coo``; it carries the Sparse key of its
device (``SparseCPU``, ``SparsePrivateUse1``) instead of the dense one, so every operator call with a sparse
argument reaches the sparse kernels (``openreg/operators/sparse.py``) or fails naming the sparse backend. It has
no storage: ``storage()``, ``data_ptr()`` and array access raise as PyTorch does.

>>> import openreg
>>> s = openreg.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
>>> s.layout, s.is_sparse, s._nnz(), s.to_dense().tolist()
(openreg.sparse_coo, True, 3, [[0.0, 0.0, 3.0], [4.0, 0.0, 5.0]])
"""
from __future__ import annotations

import sys

import numpy as np

from .._dispatch.keys import SPARSE_OF_BACKEND, DispatchKey, tensor_keyset
from ..layouts import sparse_coo
from ..tensor import Size, Tensor

_tensor_module = sys.modules[Tensor.__module__]   # ``openreg.tensor`` the module (the name is also a function)

_STORAGE_MSG = "Cannot access storage of SparseTensorImpl"
_KEYSETS = {"cpu": tensor_keyset(SPARSE_OF_BACKEND[DispatchKey.CPU]),
            "privateuseone": tensor_keyset(SPARSE_OF_BACKEND[DispatchKey.PrivateUse1])}


class _NoStorage:
    """Where a strided tensor has its storage: knows the device (autograd and device checks read it), and
    raises PyTorch's error for everything else."""

    __slots__ = ("device",)

    def __init__(self, device):
        self.device = device

    def __getattr__(self, name):
        raise NotImplementedError(_STORAGE_MSG)


class SparseCooTensor(Tensor):
    """A sparse COO tensor (see the module docstring); made by ``make_coo``, never by its constructor."""

    __slots__ = ("_coo_coalesced", "_coo_indices", "_coo_values")

    @property
    def layout(self):
        return sparse_coo

    @property
    def is_sparse(self) -> bool:
        return True

    def is_contiguous(self, memory_format=None) -> bool:
        return False

    def storage(self):
        raise NotImplementedError(_STORAGE_MSG)

    def untyped_storage(self):
        raise NotImplementedError(_STORAGE_MSG)

    def data_ptr(self) -> int:
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def _array(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")

    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def _set_meta(self, size, stride, offset) -> None:
        raise RuntimeError("a sparse tensor has no strides or storage offset to set (resize_, set_, as_strided_ "
                           "work on strided tensors only)")

    def type(self, dtype=None):
        if dtype is None:
            return super().type().replace("openreg.", "openreg.sparse.", 1)
        return super().type(dtype)

    def __repr__(self) -> str:
        return sparse_repr(self)


def make_coo(indices: Tensor, values: Tensor, size, coalesced: bool = False) -> SparseCooTensor:
    """A sparse tensor over ``indices``/``values`` (kept, not copied); the caller has checked them. Fewer than
    two entries make it coalesced whatever ``coalesced`` says (PyTorch's ``set_indices_and_values_unsafe``)."""
    t = object.__new__(SparseCooTensor)
    device = values.device
    t._coo_indices, t._coo_values = indices, values
    t._coo_coalesced = bool(coalesced) or values._size[0] < 2
    t._size = Size(size)
    t._stride = (0,) * len(t._size)     # PyTorch reports zero strides for a sparse tensor
    t._offset = 0
    t._dtype = values._dtype
    t._storage = _NoStorage(device)
    t._ks = _KEYSETS[device._type]
    t._vc = _tensor_module.new_version()
    t._base = None
    t._arr = t._arr_src = None
    t._rg = False
    t._grad_fn = None
    return t


def is_sparse(t) -> bool:
    return type(t) is SparseCooTensor


def sparse_repr(t: SparseCooTensor) -> str:
    """PyTorch's printout: ``tensor(indices=tensor(...), values=tensor(...), size=..., nnz=..., layout=...)``."""
    from .. import dtypes as _dt
    from .._array_bridge import host_array
    from .._tensor_str import _format_values
    indent = len("tensor(")

    def body(x: Tensor, prefix: str) -> str:
        arr = np.asarray(host_array(x.detach()))
        text = _format_values(arr, indent + len(prefix)) if arr.size else "[]"
        if arr.size == 0:
            text += f", size={tuple(x.shape)}"
        return f"{prefix}{text})"

    contents = (body(t._coo_indices, "indices=tensor(") + ",\n" + " " * indent +
                body(t._coo_values, "values=tensor("))
    suffixes = []
    if t.device._type != "cpu":
        suffixes.append(f"device='{t.device}'")
    suffixes += [f"size={tuple(t._size)}", f"nnz={t._coo_values._size[0]}"]
    if t._dtype not in (_dt.get_default_dtype(), _dt.int64, _dt.bool):
        suffixes.append(f"dtype=openreg.{t._dtype.name}")
    suffixes.append("layout=openreg.sparse_coo")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    # PyTorch's _add_suffixes: the first suffix of a sparse tensor starts a new line, the others wrap at 80.
    out, last, newline = "tensor(" + contents, 0, True
    last = len(out) - out.rfind("\n") + 1
    for suffix in suffixes:
        if newline or last + len(suffix) + 2 > 80:
            out += ",\n" + " " * indent + suffix
            last, newline = indent + len(suffix), False
        else:
            out += ", " + suffix
            last += len(suffix) + 2
    return out + ")"


__all__ = ["SparseCooTensor", "is_sparse", "make_coo", "sparse_repr"]
