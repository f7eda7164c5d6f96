"""Hand-written Tensor methods of the tensor model that no operator record owns: ``is_contiguous`` (memory formats,
overriding TensorBase's), indexing (``__getitem__``/``__setitem__``) and ``new_*``; the view, split, copy and
metadata methods come from their records (``openreg/operators/``).

Each is a thin call of an ``openreg.ops.aten`` overload (``ops.A``, looked up on first use); they reach ``Tensor``
as its base class ``ViewMethods``.

>>> import openreg
>>> x = openreg.arange(6.0)
>>> y = x.view(2, 3).t()
>>> y.shape, y.is_contiguous(), y.contiguous().is_contiguous(), y.to(openreg.int64).dtype
(openreg.Size([3, 2]), False, True, openreg.int64)
"""
from __future__ import annotations

import numbers

from . import _indexing
from ._dispatch.ops import A
from ._tensor_methods import mixin
from .memory_format import normalize, preserve_format, strides_for
from .operators._method_args import size_args, sizes_or_keyword
from .tensor import Size, TensorBase

# -- views ------------------------------------------------------------------------------------------------








def is_contiguous(self, memory_format=None) -> bool:
    fmt = normalize(memory_format)
    if fmt is preserve_format or fmt.name == "contiguous_format":
        return TensorBase.is_contiguous(self)
    if len(self._size) != (4 if fmt.name == "channels_last" else 5):
        return False
    want = strides_for(self._size, fmt)
    return all(sz == 1 or st == w for sz, st, w in zip(self._size, self._stride, want))


# -- metadata mutation --------------------------------------------------------------------------------------






# -- copies ---------------------------------------------------------------------------------------------------


















# -- new_* ----------------------------------------------------------------------------------------------------
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kwargs):
    return _finish(A.new_empty(self, sizes_or_keyword("new_empty", size, kwargs, "size"), dtype=dtype, device=device), requires_grad)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False, layout=None,
                      pin_memory=False):
    return _finish(A.new_empty_strided(self, size, stride, dtype=dtype, device=device), requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kwargs):
    return _finish(A.new_zeros(self, sizes_or_keyword("new_zeros", size, kwargs, "size"), dtype=dtype, device=device), requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False, **kwargs):
    return _finish(A.new_ones(self, sizes_or_keyword("new_ones", size, kwargs, "size"), dtype=dtype, device=device), requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    return _finish(A.new_full(self, size, fill_value, dtype=dtype, device=device), requires_grad)


def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    from .tensor_from_data import tensor
    if isinstance(data, TensorBase):
        import warnings
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "or sourceTensor.clone().detach().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
    return tensor(data, dtype=dtype or self._dtype, device=self.device if device is None else device,
                  requires_grad=requires_grad)


def _finish(t, requires_grad):
    return t.requires_grad_(True) if requires_grad else t


def __setitem__(self, index, value):
    _indexing.setitem(self, index, value)


ViewMethods = mixin("ViewMethods", {
    "is_contiguous": is_contiguous, "new_empty": new_empty, "new_empty_strided": new_empty_strided,
    "new_zeros": new_zeros, "new_ones": new_ones, "new_full": new_full, "new_tensor": new_tensor,
    "__getitem__": _indexing.getitem, "__setitem__": __setitem__,   # getitem itself: no wrapper frame per x[i]
})

__all__ = ["Size", "ViewMethods", "numbers"]
