"""Copies and fills: ``copy_``, ``clone``, ``_to_copy`` (behind ``Tensor.to``), ``contiguous``, ``fill``/``fill_``,
``zero_``.

``clone``, ``_to_copy`` and the functional fills allocate through ``empty_strided`` on the target device and
move the data with ``copy_``/``fill_``, so the backends only need ``copy_``, ``fill_.Scalar`` and ``zero_``
kernels (``backends/*``); the Meta kernels here check the arguments and compute nothing. Their Tensor methods
are written here where PyTorch's Python signature merges overloads (``to(*args)``, ``fill_(value)`` ...).

>>> import openreg
>>> x = openreg.arange(6.0).view(2, 3).t()
>>> y = x.contiguous()
>>> y.stride(), y.tolist() == x.tolist(), x.clone().stride()
((2, 1), True, (1, 3))
"""
from __future__ import annotations

import warnings

from .. import dtypes as _dt
from .._dispatch.keys import AFTER_ADINPLACE_MASK
from .._dispatch.ops import A
from ..aten.factories import empty_strided, resolve_device
from ..aten.meta_rules import broadcast_shapes, fmt_shape
from ..aten.views import below_inplace_or_view, fresh
from ..devices import device as Device
from ..memory_format import contiguous_format, normalize, preserve_format, preserved_strides, strides_for
from ..tensor import TensorBase
from ..tensor import TensorBase as Tensor  # importable while the Tensor class is built
from ._method_args import method_as_function
from ._record import Deriv, Op, register, sparse_kernels

CEA, CIA = "CompositeExplicitAutograd", "CompositeImplicitAutograd"


def has_internal_overlap(t: Tensor) -> bool:
    """PyTorch's cheap internal-overlap test: some dimension of size > 1 has stride 0 (never for no elements)."""
    if 0 not in t._stride:
        return False
    return any(st == 0 and sz > 1 for sz, st in zip(t._size, t._stride)) and 0 not in t._size


def check_copy(self: Tensor, src: Tensor) -> None:
    """``copy_``'s argument checks shared by every backend (raise before anything is written)."""
    if not isinstance(src, TensorBase):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    if src._size != self._size:
        shape = broadcast_shapes(self._size, src._size)  # PyTorch's "The size of tensor a (3) must match ..."
    else:
        shape = tuple(self._size)
    if shape != tuple(self._size):
        raise RuntimeError(f"output with shape {fmt_shape(self._size)} doesn't match the broadcast shape "
                           f"{fmt_shape(shape)}")
    if has_internal_overlap(self):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    if src._dtype.is_complex and not self._dtype.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)


def meta_copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    check_copy(self, src)
    if not self.is_meta:
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    return self


def layout_for(self: Tensor, memory_format) -> tuple:
    fmt = normalize(memory_format)
    if fmt is preserve_format:
        return preserved_strides(self)
    return strides_for(self._size, fmt)


def clone(self: Tensor, *, memory_format=None) -> Tensor:
    out = empty_strided(self._size, layout_for(self, memory_format), dtype=self._dtype,
                                         device=self.device)
    A.copy_(out, self)
    keep_backend_meta(self, out)
    return fresh(out)


def keep_backend_meta(src: Tensor, out: Tensor) -> None:
    """Copies keep the backend metadata and, for an unchanged quantized dtype, the quantization parameters."""
    if src._qparams is not None and out._dtype is src._dtype:
        out._qparams = src._qparams
    if src._backend_meta is not None:
        from ..utils.backend_meta import copy_backend_meta
        copy_backend_meta(src, out)


def to_copy(self: Tensor, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking: bool = False,
            memory_format=None) -> Tensor:
    dev = self.device if device is None else resolve_device(device)
    out = empty_strided(self._size, layout_for(self, memory_format),
                                         dtype=dtype or self._dtype, device=dev)
    if pin_memory:
        out = out.pin_memory()
    # straight to the backends' copy_ kernel: ``out`` is new (no history, version 0 either way)
    A.copy_.redispatch_fn((out._ks | self._ks) & AFTER_ADINPLACE_MASK, out, self, non_blocking)
    keep_backend_meta(self, out)
    return fresh(out)


def contiguous(self: Tensor, *, memory_format=contiguous_format) -> Tensor:
    fmt = normalize(memory_format)
    if fmt is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if tuple(self._stride) == strides_for(self._size, fmt) or self.is_contiguous(memory_format=fmt):
        return self
    return A.clone(self, memory_format=fmt)


def fill_tensor_(self: Tensor, value: Tensor) -> Tensor:
    if value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           f"dimensions.")
    if value.is_meta or self.is_meta:
        return self
    with below_inplace_or_view():
        return A.fill___Scalar(self, value.item())


def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    out = empty_strided(self._size, preserved_strides(self), dtype=self._dtype, device=self.device)
    return fresh(A.fill___Tensor(out, value))


def fill(self: Tensor, value) -> Tensor:
    out = empty_strided(self._size, preserved_strides(self), dtype=self._dtype,
                                         device=self.device)
    return fresh(A.fill___Scalar(out, value))


def _meta_fill_(self: Tensor, value) -> Tensor:
    return self


def _meta_zero_(self: Tensor) -> Tensor:
    return self


# -- Tensor methods ------------------------------------------------------------------------------------------
def _copy_method(self, src, non_blocking=False):
    return A.copy_(self, src, non_blocking)


def _fill_method(self, value):
    if isinstance(value, Tensor):
        return A.fill___Tensor(self, value)
    return A.fill___Scalar(self, value)


def _zero_method(self):
    return A.zero_(self)


def _contiguous_method(self, memory_format=None):
    if memory_format is None:
        if TensorBase.is_contiguous(self):
            return self
        return A.clone(self, memory_format="contiguous_format")
    return A.contiguous(self, memory_format=memory_format)


def _parse_to(args, kwargs):
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, _dt.dtype):
            dtype = a
        elif isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, (str, Device, int)) and not isinstance(a, bool):
            device = Device(a)
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(a).__name__})")
    if device is not None:
        device = resolve_device(device)
    return device, dtype


def _to_method(self, *args, non_blocking=False, copy=False, memory_format=None, **kwargs):
    """Convert device and/or dtype; returns ``self`` when nothing changes and ``copy`` is False."""
    device, dtype = _parse_to(args, dict(kwargs))
    same = (device is None or device == self.device) and (dtype is None or dtype is self._dtype)
    if same and not copy and memory_format is None:
        return self
    return A._to_copy(self, dtype=dtype, device=device, non_blocking=non_blocking, memory_format=memory_format)


def _cpu_method(self, memory_format=None):
    return _to_method(self, "cpu", memory_format=memory_format)


def _converter(dtype):
    def convert(self, memory_format=None):
        return _to_method(self, dtype, memory_format=memory_format)
    convert.__name__ = dtype.name
    return convert


_CONVERTERS = {name: _converter(getattr(_dt, dtype)) for name, dtype in (
    ("float", "float32"), ("double", "float64"), ("half", "float16"), ("bfloat16", "bfloat16"), ("long", "int64"),
    ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8"), ("bool", "bool"),
    ("cfloat", "complex64"), ("cdouble", "complex128"))}


# -- the records ------------------------------------------------------------------------------------------
# The backends' own kernels (NumPy copies on the CPU; the device's copy engine and raw fill kernel).
_CPU, _DEVICE = "openreg.backends.cpu.kernels", "openreg.backends.privateuseone"
_BACKEND_KERNELS = {
    "copy_": {"CPU": f"{_CPU}:copy_", "PrivateUse1": f"{_DEVICE}.copies:copy_"},
    "fill_.Scalar": {"CPU": f"{_CPU}:fill_", "PrivateUse1": f"{_DEVICE}.device_ops:fill_"},
    "zero_": {"CPU": f"{_CPU}:zero_", "PrivateUse1": f"{_DEVICE}.device_ops:zero_", **sparse_kernels("zero_sparse_")},
    "clone": {"CPU": f"{_CPU}:clone", **sparse_kernels("clone_sparse")},
    "_to_copy": sparse_kernels("to_copy_sparse"),
}


def _copy_op(name: str, schemas: str, kernels: dict, derivatives: dict, method=False, extra_methods=None,
             function=False) -> Op:
    """``kernels``: ``{overload: (dispatch key, fn)}``, plus the backends' own kernels of ``_BACKEND_KERNELS``."""
    return Op(name, schemas, kernels={o: {key: fn, **_BACKEND_KERNELS.get(o, {})} for o, (key, fn) in kernels.items()},
              derivatives=derivatives, function=function, method=method, extra_methods=extra_methods)


def _no_grad_to_self(g, a):
    return None


def _grad_of_value(g, a):
    return g.sum()


def _value_expanded(t, a):
    return t.expand(a.size_of("self"))


copy_op = _copy_op("copy_", "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
                   {"copy_": ("Meta", meta_copy_)},
                   {"copy_": Deriv(name="CopyBackwards", self=_no_grad_to_self,
                                   src=lambda g, a: g.to(device=a.device_of("src"), dtype=a.dtype_of("src")),
                                   jvp={"src": lambda t, a: t.to(device=a.device_of("self"), dtype=a.dtype_of("self"))})},
                   _copy_method)
fill_op = _copy_op("fill", """
    fill.Scalar(Tensor self, Scalar value) -> Tensor  [core]
    fill.Tensor(Tensor self, Tensor value) -> Tensor
    fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
    fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)
    """, {"fill.Scalar": (CEA, fill), "fill.Tensor": (CEA, fill_tensor), "fill_.Scalar": ("Meta", _meta_fill_),
          "fill_.Tensor": (CEA, fill_tensor_)},
    {"fill.Scalar": Deriv(name="FillBackward0", self=_no_grad_to_self, jvp={}),
     "fill.Tensor": Deriv(name="FillBackward1", self=_no_grad_to_self, value=_grad_of_value,
                          jvp={"value": _value_expanded})}, extra_methods={"fill_": _fill_method}, function=True)
zero_op = _copy_op("zero_", "zero_(Tensor(a!) self) -> Tensor(a!)", {"zero_": ("Meta", _meta_zero_)},
                   {"zero_": Deriv(name="ZeroBackward0", self=_no_grad_to_self, jvp={})}, _zero_method,
                   function=method_as_function("zero_", "openreg.ones(2)", [2]))
clone_op = _copy_op("clone", "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor  [core, pointwise]",
                    {"clone": (CEA, clone)}, {"clone": Deriv(linear=True, self=lambda g, a: g)}, True,
                    function=method_as_function("clone", "openreg.zeros(2)", [2]))
to_copy_op = _copy_op("_to_copy", (
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor  [core]"),
    {"_to_copy": (CEA, to_copy)},
    {"_to_copy": Deriv(linear=True, self=lambda g, a: g.to(device=a.device_of("self"), dtype=a.dtype_of("self")))},
    extra_methods={"to": _to_method, "cpu": _cpu_method, **_CONVERTERS})
contiguous_op = _copy_op(
    "contiguous", "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    {"contiguous": (CIA, contiguous)}, {"contiguous": Deriv(linear=True, name="CloneBackward0", self=lambda g, a: g)},
    _contiguous_method)

register(copy_op, fill_op, zero_op, clone_op, to_copy_op, contiguous_op)

__all__ = ["check_copy", "has_internal_overlap", "keep_backend_meta", "layout_for"]
