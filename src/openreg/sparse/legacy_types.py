"""PyTorch's legacy sparse constructors: ``openreg.sparse.FloatTensor(indices, values, size)`` & co. (and
``openreg.<device>.sparse.*``), as older graph programs (tkipf's pygcn) build their adjacency matrices.

As PyTorch's: ``(indices, values[, size])`` makes a COO tensor of the values' dtype (the type's dtype is not
applied), ``(*size)`` or ``()`` an empty one of the type's dtype; ``isinstance`` tests layout, dtype and device.

>>> import openreg, warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     s = openreg.sparse.FloatTensor(openreg.tensor([[0, 1], [1, 0]]), openreg.tensor([2.0, 3.0]), (2, 2))
>>> s.to_dense().tolist(), s.type()
([[0.0, 2.0], [3.0, 0.0]], 'openreg.sparse.FloatTensor')
"""
from __future__ import annotations

import numbers
import warnings

from .. import dtypes as _dt
from ..devices import device as Device
from ..devices import privateuse1_name
from ..tensor import _LEGACY_NAMES, Size, TensorBase

_FORMS = (" * (*, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, *, torch.device device = None)\n"
          " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
          " * (tuple of ints size, *, torch.device device = None)\n")


def _size_args(args) -> tuple | None:
    if len(args) == 1 and isinstance(args[0], Size):
        return tuple(args[0])
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return tuple(int(a) for a in args)
    return None


def sparse_legacy_new(dtype, device_type: str, args: tuple, kwargs: dict, *, warn: bool = True):
    """The tensor ``openreg[.<device>].sparse.<Type>(*args, device=None)`` makes (``warn``: its deprecation
    warnings; a sparse tensor's ``new(...)`` gives none, as PyTorch's)."""
    import openreg

    unknown = [k for k in kwargs if k != "device"]
    if unknown:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                        f"argument(s) {', '.join(map(repr, unknown))}, but expected one of:\n{_FORMS}")
    device = Device(kwargs["device"]) if kwargs.get("device") is not None else Device(device_type)
    if device.type != device_type:
        raise RuntimeError(f"legacy constructor expects device type: {device_type} but device type: "
                           f"{device.type} was passed")
    if len(args) in (2, 3) and all(isinstance(a, TensorBase) for a in args[:2]):
        indices, values = args[0], args[1]
        if warn:
            warnings.warn("torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
                          "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=).", UserWarning,
                          stacklevel=3)
        if indices.dtype != _dt.int64:
            raise RuntimeError("indices must be an int64 tensor")
        size = None if len(args) == 2 else args[2]
        return openreg.sparse_coo_tensor(indices, values, size, device=device)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        raise TypeError("torch.sparse.SparseTensor(sequence) only accepts sizes.  Please use "
                        "torch.sparse_coo_tensor() or construct a strided tensor and convert it to sparse via "
                        "to_sparse.")
    size = _size_args(args) if args else (0,)
    if size is None:
        got = ", ".join(type(a).__name__ if not isinstance(a, TensorBase) else "Tensor" for a in args)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:"
                        f"\n{_FORMS}")
    if args and warn:
        warnings.warn("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(shape, dtype=, device=).", UserWarning, stacklevel=3)
    indices = openreg.zeros(len(size), 0, dtype=_dt.int64, device=device)
    return openreg.sparse_coo_tensor(indices, openreg.zeros(0, dtype=dtype, device=device), size)


class SparseLegacyTensorType(type):
    """The type of ``openreg.sparse.FloatTensor`` & co.: calling one makes a sparse COO tensor."""

    dtype: _dt.dtype
    _on_device: bool

    def __call__(cls, *args, **kwargs):
        return sparse_legacy_new(cls.dtype, privateuse1_name() if cls._on_device else "cpu", args, kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return (isinstance(obj, TensorBase) and obj.is_sparse and obj.dtype == cls.dtype
                and obj.device.type == (privateuse1_name() if cls._on_device else "cpu"))

    def __repr__(cls) -> str:
        where = f"{privateuse1_name()}.sparse" if cls._on_device else "sparse"
        return f"<class 'openreg.{where}.{cls.__name__}'>"


def _make_types(on_device: bool) -> dict:
    names = ("DoubleTensor", "FloatTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
             "ShortTensor", "CharTensor", "ByteTensor")
    by_name = {n: d for d, n in _LEGACY_NAMES.items()}
    return {n: SparseLegacyTensorType(n, (), {"dtype": by_name[n], "_on_device": on_device, "__slots__": (),
                                              "__module__": "openreg.sparse"}) for n in names}


CPU_SPARSE_TYPES = _make_types(False)
DEVICE_SPARSE_TYPES = _make_types(True)

__all__ = ["CPU_SPARSE_TYPES", "DEVICE_SPARSE_TYPES", "SparseLegacyTensorType", "sparse_legacy_new"]
