"""Advanced indexing: ``index.Tensor`` (gather by index tensors, copies) and ``index_put_``/``index_put``.

``indices`` holds one entry per leading dimension of ``self``: ``None`` keeps the dimension, an integer
tensor picks along it, a bool (or legacy uint8) mask covers as many dimensions as it has. The semantics
are NumPy's advanced indexing, which is also PyTorch's. The kernels are written against the array module
of ``self``'s storage (NumPy, or CuPy on the cuda driver), so one CompositeExplicitAutograd kernel serves
the CPU and the device; Meta gets a shape-only kernel.

>>> import openreg
>>> x = openreg.arange(6).view(2, 3)
>>> openreg.ops.aten.index.Tensor(x, [None, openreg.tensor([2, 0])]).tolist()
[[2, 0], [5, 3]]
"""
from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes as _dt
from .._array_bridge import from_compute, host_array, to_compute, wrap_array
from .._dispatch.ops import A
from ..aten.meta_rules import broadcast_shapes, fmt_shape, scalar_type_name
from ..aten.structured import empty_tensor
from ..aten.views import fresh
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._formulas import zeros
from ._record import Deriv, Op, register
from ._scatter import accumulate_at

_INDEX_DTYPES = (_dt.int64, _dt.int32, _dt.int16, _dt.int8, _dt.uint8, _dt.bool)


def _check_index_tensors(self: Tensor, indices) -> int:
    """Type/device/count checks shared by every backend; returns the number of dims the indices cover."""
    covered = 0
    for idx in indices:
        if idx is None:
            covered += 1
            continue
        if not isinstance(idx, Tensor):
            raise TypeError(f"index(): indices must be Tensors or None, not {type(idx).__name__}")
        if idx._dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if idx.device != self.device and not idx.is_cpu:
            raise RuntimeError(f"indices should be either on cpu or on the same device as the indexed tensor "
                               f"({self.device})")
        covered += idx.dim() if idx._dtype in (_dt.bool, _dt.uint8) else 1
    if covered > self.dim():
        raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
    return covered


def _index_array(idx: Tensor, xp, self: Tensor):
    if idx.device == self.device:
        return idx._array()
    return xp.asarray(host_array(idx))


def _normalize(self: Tensor, indices, xp) -> tuple:
    """NumPy index tuple with masks expanded to integer arrays and bounds checked (PyTorch's messages)."""
    _check_index_tensors(self, indices)
    out = []
    dim = 0
    for k, idx in enumerate(indices):
        if idx is None:
            out.append(slice(None))
            dim += 1
            continue
        arr = _index_array(idx, xp, self)
        if idx._dtype in (_dt.bool, _dt.uint8):
            if idx._dtype is _dt.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                              "instead.", UserWarning, stacklevel=4)
                arr = arr != 0
            for j, s in enumerate(idx._size):
                if s != self._size[dim + j]:
                    raise IndexError(f"The shape of the mask {fmt_shape(idx._size)} at index {j} does not match "
                                     f"the shape of the indexed tensor {fmt_shape(self._size)} at index {dim + j}")
            # A 0-d mask stays a mask (it adds a dimension of size 1 or 0, as in NumPy).
            out.extend(xp.nonzero(arr) if arr.ndim else (arr.astype(bool),))
            dim += idx.dim()
            continue
        size = self._size[dim]
        arr = arr.astype(xp.int64, copy=False)
        if arr.size:
            bad = (arr >= size) | (arr < -size)
            if bool(bad.any()):
                value = int(arr[bad].reshape(-1)[0])
                raise IndexError(f"index {value} is out of bounds for dimension {dim} with size {size}")
        out.append(arr)
        dim += 1
    return tuple(out)


def result_shape(self_size, index_shapes) -> tuple:
    """Shape of an advanced-indexing result; ``index_shapes`` has None for kept dims (integer indices only)."""
    positions = [i for i, s in enumerate(index_shapes) if s is not None]
    if not positions:
        return tuple(self_size)
    bshape = broadcast_shapes(*[index_shapes[i] for i in positions])
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    rest_before = [self_size[i] for i in range(positions[0]) if index_shapes[i] is None]
    tail = list(self_size[len(index_shapes):])
    middle = [self_size[i] for i in range(positions[0], len(index_shapes)) if index_shapes[i] is None]
    if adjacent:
        return tuple(rest_before) + tuple(bshape) + tuple(middle) + tuple(tail)
    return tuple(bshape) + tuple(rest_before) + tuple(middle) + tuple(tail)


def _meta_index_shape(self: Tensor, indices) -> tuple:
    _check_index_tensors(self, indices)
    shapes = []
    for idx in indices:
        if idx is None:
            shapes.append(None)
        elif idx._dtype in (_dt.bool, _dt.uint8):
            raise NotImplementedError("aten::index: boolean mask indices give a data-dependent shape, which the "
                                      "'meta' backend cannot compute; index with integer tensors instead")
        else:
            shapes.append(tuple(idx._size))
    return result_shape(self._size, shapes)


def _xp(t: Tensor):
    return t._storage._backend.array_module


def _check_some_index(indices) -> None:
    if len(indices) == 0:
        raise IndexError("at least one index must be provided")


def _index(self: Tensor, indices) -> Tensor:
    _check_some_index(indices)
    xp = _xp(self)
    key = _normalize(self, indices, xp)
    return wrap_array(self._array()[key], self._dtype, self.device)


def _meta_index(self: Tensor, indices) -> Tensor:
    _check_some_index(indices)
    return empty_tensor(_meta_index_shape(self, indices), self._dtype, self.device)


def _check_values(self: Tensor, values: Tensor, target_shape) -> None:
    if values.device != self.device and not (values.is_cpu and values.dim() == 0):
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{self.device} and {values.device}! (when checking argument for index_put_)")
    try:
        ok = broadcast_shapes(tuple(values._size), tuple(target_shape)) == tuple(target_shape)
    except RuntimeError:
        ok = False
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {fmt_shape(values._size)} cannot be broadcast "
                           f"to indexing result of shape {fmt_shape(target_shape)}")
    if values._dtype is not self._dtype and values.dim() != 0:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{scalar_type_name(self._dtype)} for the destination and "
                           f"{scalar_type_name(values._dtype)} for the source.")


def _check_overlap(self: Tensor) -> None:
    if any(st == 0 and sz > 1 for sz, st in zip(self._size, self._stride)):
        warnings.warn("Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                      "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
                      "tensor", UserWarning, stacklevel=4)


def _index_put_(self: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    xp = _xp(self)
    key = _normalize(self, indices, xp)
    dst = self._array()
    target_shape = xp.broadcast_to(xp.empty((), dtype=xp.uint8), dst.shape)[key].shape
    _check_values(self, values, target_shape)
    _check_overlap(self)
    if values.device == self.device:
        vals = values._array()
        if xp is np and np.shares_memory(vals, dst):
            vals = vals.copy()
    else:
        vals = xp.asarray(host_array(values))
    if values._dtype is not self._dtype:
        vals = from_compute(to_compute(values) if values.device == self.device else vals, self._dtype)
        vals = xp.asarray(vals)
    if not accumulate:
        dst[key] = vals
    else:
        accumulate_at(xp, dst, key, vals, self._dtype)
    return self



def _meta_index_put_(self: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    _check_values(self, values, _meta_index_shape(self, indices))
    return self


def _index_put(self: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    return fresh(A.index_put_(A.clone(self), indices, values, accumulate))



def _index_grad(g, a):
    return A.index_put(zeros(a.size_of("self"), g), a.indices, g, True)


def _index_put_self(g, a):
    return A.index_put(g, a.indices, zeros((), g), False) if not a.accumulate else g


def _index_put_values(g, a):
    return A.index__Tensor(g, a.indices)


index = Op(
    "index",
    """
    index.Tensor(Tensor self, Tensor?[] indices) -> Tensor  [core, dynamic_output_shape]
    """,
    # The device runs it through the CPU fallback (as PyTorch's open-registration example backend does).
    kernels={"index.Tensor": {"CompositeExplicitAutograd": _index, "Meta": _meta_index,
                              "PrivateUse1": "openreg.backends.privateuseone.fallback:cpu_fallback_kernel"}},
    derivatives={"index.Tensor": Deriv(save="indices", self=_index_grad,
                                       jvp={"self": lambda t, a: A.index__Tensor(t, a.indices)})},
    function=False, method=False,
)

index_put = Op(
    "index_put",
    """
    index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
    index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor  [core]
    """,
    kernels={"index_put_": {"CompositeExplicitAutograd": _index_put_, "Meta": _meta_index_put_},
             "index_put": {"CompositeImplicitAutograd": _index_put}},
    derivatives={"index_put": Deriv(
        save="indices", name="IndexPutBackward0", self=_index_put_self, values=_index_put_values,
        jvp={"self": lambda t, a: _index_put_self(t, a),
             "values": lambda t, a: A.index_put(zeros(a.size_of("self"), t), a.indices, t,
                                                              a.accumulate)})},
    doc="""``input`` with ``values`` written (or, with ``accumulate=True``, added) at ``indices``.

    >>> import openreg
    >>> openreg.index_put(openreg.zeros(3), [openreg.tensor([0, 0])], openreg.tensor([1.0, 2.0]), True).tolist()
    [3.0, 0.0, 0.0]
    """,
)

register(index, index_put)
