"""PyTorch's legacy tensor constructors and types: ``openreg.Tensor(2, 3)``, ``openreg.FloatTensor([1, 2])``,
``openreg.LongTensor(n)``, ``x.new(size)``, ``isinstance(x, openreg.FloatTensor)``, ``x.type(openreg.LongTensor)``.

Older programs (and many still written today) build parameters and index buffers this way. As in PyTorch, a
legacy constructor takes sizes (ints or a ``Size``: uninitialized memory), data (a sequence or an ndarray,
converted to the type's dtype), another tensor of the same type (an alias), or nothing (an empty tensor), and
only the keyword ``device``, whose type must be the type's. The device versions live on the device module
(``openreg.privateuseone.FloatTensor``, or ``openreg.cuda.FloatTensor`` once the device is named ``cuda``).

>>> import openreg
>>> openreg.FloatTensor(2, 3).shape
openreg.Size([2, 3])
>>> openreg.LongTensor([1.7, 2]).tolist()
[1, 2]
>>> isinstance(openreg.ones(2), openreg.FloatTensor), isinstance(openreg.ones(2), openreg.LongTensor)
(True, False)
>>> openreg.ones(2).type(openreg.LongTensor).dtype
openreg.int64
"""
from __future__ import annotations

import builtins
import numbers

from . import dtypes as _dt
from .devices import device as Device
from .devices import privateuse1_name
from .tensor import _LEGACY_NAMES, Size, TensorBase


def _device_type(on_device: bool) -> str:
    return privateuse1_name() if on_device else "cpu"


def _type_name(dtype, device_type: str) -> str:
    name = _LEGACY_NAMES.get(dtype, dtype.name)
    return f"openreg.{name}" if device_type == "cpu" else f"openreg.{device_type}.{name}"


def legacy_new(dtype, device_type: str, args: tuple, kwargs: dict, *, any_dtype: bool = False):
    """The tensor ``<type>(*args, **kwargs)`` makes for a legacy type of ``dtype`` on ``device_type``
    (``any_dtype``: ``openreg.Tensor(other)`` aliases a tensor of any dtype, as PyTorch's does)."""
    from .operators.factories import empty
    from .tensor_from_data import tensor

    unknown = [k for k in kwargs if k != "device"]
    if unknown:
        raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                        f"argument(s) {', '.join(map(repr, unknown))}; expected (*size, *, device=None), "
                        f"(data, *, device=None) or (Tensor other)")
    device = kwargs.get("device")
    if device is None:
        device = Device(device_type)
    else:
        device = Device(device)
        if device.type != device_type:
            raise RuntimeError(f"legacy constructor expects device type: {device_type} but device type: "
                               f"{device.type} was passed")
    if not args:
        return empty(0, dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, TensorBase):
            if (not any_dtype and data.dtype != dtype) or data.device.type != device_type:
                raise TypeError(f"expected {_type_name(dtype, device_type)} (got {data.type()})")
            return data.view(data.shape)  # an alias sharing the storage (and the autograd history)
        if isinstance(data, Size):
            return empty(data, dtype=dtype, device=device)
        if isinstance(data, (builtins.float, builtins.complex, builtins.bool, str)) or (
                isinstance(data, numbers.Number) and not isinstance(data, numbers.Integral)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if not isinstance(data, numbers.Integral):
            return tensor(data, dtype=dtype, device=device)
    for pos, s in enumerate(args):
        if not isinstance(s, numbers.Integral) or isinstance(s, builtins.bool):
            raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {pos}")
    return empty(tuple(builtins.int(s) for s in args), dtype=dtype, device=device)


class LegacyTensorType(type):
    """The type of ``openreg.FloatTensor`` & co. (PyTorch's ``torch.tensortype``): calling one makes a tensor
    of its dtype on its device type; ``isinstance`` tests a tensor's dtype and device type."""

    dtype: _dt.dtype
    _on_device: bool | None  # None: openreg.cuda's types while the device has another name (a CPU-only build's)

    def __call__(cls, *args, **kwargs):
        if cls._on_device is None:
            raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled with CUDA enabled "
                            f"(openreg's device is named '{privateuse1_name()}'; set OPENREG_DEVICE_NAME=cuda "
                            "to run on it under the name 'cuda')")
        return legacy_new(cls.dtype, _device_type(cls._on_device), args, kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return cls._on_device is not None and (isinstance(obj, TensorBase) and obj.dtype == cls.dtype
                and obj.device.type == _device_type(cls._on_device) and not obj.is_sparse)

    def __repr__(cls) -> str:
        if cls._on_device is None:
            return f"<class 'openreg.cuda.{cls.__name__}'>"
        return f"<class '{_type_name(cls.dtype, _device_type(cls._on_device))}'>"

    @property
    def is_cuda(cls) -> bool:
        return _device_type(cls._on_device) == "cuda"

    @property
    def device_type(cls) -> str:
        """``"cpu"`` or the device's current name."""
        return _device_type(cls._on_device)


def _make_types(on_device: bool) -> dict:
    out = {}
    for dtype, name in _LEGACY_NAMES.items():
        if name.startswith(("QInt", "QUInt")):
            continue
        out[name] = LegacyTensorType(name, (), {"dtype": dtype, "_on_device": on_device,
                                                "__module__": "openreg", "__slots__": ()})
    return out


CPU_TYPES = _make_types(False)
DEVICE_TYPES = _make_types(True)
CUDA_UNAVAILABLE_TYPES = _make_types(None)  # openreg.cuda.FloatTensor & co. while the device has another name


_device_from_tensor_type = [False]   # whether set_default_tensor_type chose the default device


def set_default_tensor_type(t, /) -> None:
    """Deprecated (as in PyTorch 2.1+, with its warning): make ``t`` -- a legacy floating tensor type such as
    ``openreg.DoubleTensor`` or ``openreg.cuda.HalfTensor``, or its dotted name -- the type factories create:
    its dtype becomes the default dtype and its device type the default device (LLaMA's reference
    ``generation.py`` builds its model under ``set_default_tensor_type(torch.cuda.HalfTensor)``).

    >>> import openreg, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     openreg.set_default_tensor_type(openreg.DoubleTensor)
    ...     d = openreg.zeros(1).dtype
    ...     openreg.set_default_tensor_type("torch.FloatTensor")
    >>> d, openreg.zeros(1).dtype
    (openreg.float64, openreg.float32)
    """
    import warnings

    import openreg

    from .devices import set_default_device
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    if isinstance(t, str):
        obj = openreg
        for part in t.split(".")[1:]:
            obj = getattr(obj, part)
        t = obj
    if not isinstance(t, LegacyTensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if t._on_device is None:
        t()     # raises the unavailable type's error
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dt.set_default_dtype(t.dtype)
    if t._on_device:
        set_default_device(_device_type(True))
        _device_from_tensor_type[0] = True
    elif _device_from_tensor_type[0]:
        set_default_device(None)
        _device_from_tensor_type[0] = False


def tensor_new(cls, *args, **kwargs):
    """``openreg.Tensor(*args, device=None)``: a legacy constructor of the default tensor type: the default dtype,
    on the CPU unless ``set_default_tensor_type`` chose a device type (``set_default_device`` does not move it, as
    in PyTorch); a subclass gets an instance of itself sharing the result's storage."""
    t = legacy_new(_dt.get_default_dtype(), _device_type(True) if _device_from_tensor_type[0] else "cpu", args, kwargs,
                   any_dtype=True)
    if cls is type(t):
        return t
    return cls._make(t._storage, t._size, t._stride, t._offset, t._dtype)


def new(self, *args, **kwargs):
    """``x.new(*args, device=None)``: a legacy constructor of ``x``'s dtype on ``x``'s device (sizes make
    uninitialized memory, data is converted).

    >>> import openreg
    >>> x = openreg.zeros(2, dtype=openreg.float64)
    >>> x.new([1, 2]).dtype, x.new(3).shape, x.new().shape
    (openreg.float64, openreg.Size([3]), openreg.Size([0]))
    """
    if "device" not in kwargs:
        kwargs = dict(kwargs, device=self.device)
    if self.is_sparse:      # new(indices, values[, size]) or new(*sizes): a sparse tensor
        from .sparse.legacy_types import sparse_legacy_new
        return sparse_legacy_new(self._dtype, self.device.type, args, kwargs, warn=False)
    return legacy_new(self._dtype, self.device.type, args, kwargs)


def type_conversion(self, target):
    """``x.type(openreg.LongTensor)`` / ``x.type("torch.cuda.FloatTensor")``: ``x`` converted, or ``None`` when
    ``target`` names no legacy type."""
    if isinstance(target, LegacyTensorType):
        return self.to(device=Device(target.device_type) if target.device_type != self.device.type else self.device,
                       dtype=target.dtype)
    if isinstance(target, str):
        prefix, _, name = target.rpartition(".")
        parts = prefix.split(".")
        if parts[0] not in ("torch", "openreg") or len(parts) > 2:
            return None
        for dtype, legacy in _LEGACY_NAMES.items():
            if legacy == name:
                if len(parts) == 1:
                    return self.to(device="cpu", dtype=dtype)
                if parts[1] != privateuse1_name():
                    raise TypeError(f"type {target} not available: openreg's device is named "
                                    f"'{privateuse1_name()}'")
                dev = self.device if self.device.type == parts[1] else Device(parts[1])
                return self.to(device=dev, dtype=dtype)
    return None
