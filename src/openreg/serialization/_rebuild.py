"""Rebuilding tensors and storages, with the signatures of PyTorch's ``torch._utils._rebuild_*`` functions.

A checkpoint's pickle names PyTorch's rebuild functions; the unpickler maps each name onto the function of the same
name here, so files of either library load into openreg tensors. Saving goes the other way: ``reduce_tensor`` gives
these functions, and the checkpoint pickler writes them under PyTorch's names. Storage placement (``map_location``),
backend metadata and the bounds check of every tensor against its storage live here too.
"""
from __future__ import annotations

import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable

from ..devices import CPU, PRIVATEUSE1
from ..devices import device as Device

_tls = threading.local()          # map_location and the saved device type of each storage, during one load
meta_hooks: dict[str, tuple[Callable, Callable]] = {}
BACKEND_META_KEY = "_openreg_backend_meta"


class QScheme:
    """A quantization scheme name (``openreg.per_tensor_affine`` in files; PyTorch's ``torch.qscheme``)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"openreg.{self.name}"

    def __reduce__(self):
        return self.name


per_tensor_affine = QScheme("per_tensor_affine")


class TypedStorage:
    """An untyped storage seen as elements of ``dtype``: what a checkpoint names a tensor's storage by
    (PyTorch's ``FloatStorage``, ...). Only serialization uses it."""

    __slots__ = ("dtype", "untyped")

    def __init__(self, untyped, dtype):
        self.untyped, self.dtype = untyped, dtype

    def __reduce__(self):
        return (TypedStorage, (self.untyped, self.dtype))


class StorageType:
    """A storage class name in a checkpoint (``torch.FloatStorage``): it stands for a dtype."""

    def __init__(self, name: str, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"StorageType({self.name})"


def location(dev: Device) -> str:
    """The saved location string: ``cpu``, ``meta`` or ``privateuseone:<index>`` (whatever the device's current
    name). PyTorch writes the same for a PrivateUse1 device; a CPU-only PyTorch loads it with
    ``map_location="cpu"`` (without it PyTorch cannot place the storage and raises)."""
    if dev._type == PRIVATEUSE1:
        return f"{PRIVATEUSE1}:{dev.index or 0}"
    return dev._type


# -- placing storages (map_location) --------------------------------------------------------------------------
def _mapped(saved: Device) -> Device | None:
    ml = getattr(_tls, "map_location", None)
    if ml is None or callable(ml):
        return None
    if isinstance(ml, dict):
        for src, dst in ml.items():
            if Device(src) == saved or (Device(src).index is None and Device(src)._type == saved._type):
                return Device(dst)
        return None
    return Device(ml)


def parse_location(text) -> Device:
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    if not isinstance(text, str):
        raise pickle.UnpicklingError(f"a storage record names {text!r} as its location")
    try:
        return Device(text)
    except (RuntimeError, ValueError, TypeError) as e:
        raise RuntimeError(f"Cannot restore a storage saved on '{text}' here ({e}); pass map_location, e.g. "
                           f"map_location='cpu'") from None


def restore_storage(host, nbytes: int, loc: str):
    """A storage holding ``host`` (NumPy uint8, ``nbytes`` long; None for meta) where ``map_location`` sends a
    storage saved on ``loc``; remembers the saved device type for backend metadata."""
    from .. import dtypes
    from ..storage import UntypedStorage
    from ..tensor import Size, Tensor
    saved = parse_location(loc)
    if saved._type == "meta":
        storage = UntypedStorage(nbytes, device="meta")
    else:
        cpu_storage = UntypedStorage._wrap(host, nbytes, CPU)
        ml = getattr(_tls, "map_location", None)
        mapped = ml(cpu_storage, str(loc)) if callable(ml) else None
        target = _mapped(saved) or saved
        if mapped is not None:
            storage = mapped
        elif target._type == "cpu":
            storage = cpu_storage
        elif target._type == "meta":
            storage = UntypedStorage(nbytes, device="meta")
        else:
            flat = Tensor._make(cpu_storage, Size((nbytes,)), (1,), 0, dtypes.uint8)
            storage = flat.to(target).untyped_storage()
    types = getattr(_tls, "saved_types", None)
    if types is not None:
        types[id(storage)] = saved._type
    return storage


# -- rebuilding tensors (PyTorch's signatures) -----------------------------------------------------------------
def _untyped(storage):
    from ..storage import UntypedStorage
    if isinstance(storage, TypedStorage):
        return storage.untyped, storage.dtype
    if isinstance(storage, UntypedStorage):
        return storage, None
    raise pickle.UnpicklingError(f"a tensor record refers to {type(storage).__name__}, not a storage")


def check_in_bounds(storage, offset, size, stride, dtype) -> None:
    """A loaded tensor must lie inside its storage, with sizes and offsets int64 can hold (storage_bounds.py)."""
    from ..dtypes import dtype as Dtype
    from ..storage_bounds import check_in_bounds as check_storage_bounds
    from ..storage_bounds import check_numel, check_view_args
    if not isinstance(dtype, Dtype):
        raise pickle.UnpicklingError(f"a tensor record names {dtype!r} as its dtype, not a dtype")
    if not (isinstance(offset, int) and isinstance(size, (tuple, list)) and isinstance(stride, (tuple, list))
            and all(isinstance(v, int) for v in (*size, *stride))):
        raise pickle.UnpicklingError(f"a tensor record has sizes {size!r}, strides {stride!r} and storage offset "
                                     f"{offset!r}; expected integers")
    check_view_args("load", size, stride, offset)
    if storage.device.type != "meta":
        check_storage_bounds(size, stride, offset, dtype.itemsize, storage.nbytes())
    check_numel(size)


def _make(storage, offset, size, stride, dtype, requires_grad):
    from ..tensor import Size, Tensor
    check_in_bounds(storage, offset, size, stride, dtype)
    t = Tensor._make(storage, Size(size), tuple(stride), offset, dtype)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    untyped, dtype = _untyped(storage)
    from .. import dtypes
    return _make(untyped, storage_offset, size, stride, dtype or dtypes.uint8, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    untyped, dtype = _untyped(storage)
    from .. import dtypes
    return _make(untyped, storage_offset, size, stride, dtype or dtypes.uint8, requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    untyped, _ = _untyped(storage)
    return _make(untyped, storage_offset, size, stride, dtype, requires_grad)


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad, backward_hooks):
    untyped, dtype = _untyped(storage)
    scheme = quantizer_params[0] if isinstance(quantizer_params, tuple) and quantizer_params else None
    if scheme is not per_tensor_affine or len(quantizer_params) != 3:
        raise RuntimeError(f"openreg.load: quantization scheme {scheme!r} is not supported (only "
                           f"per_tensor_affine)")
    t = _make(untyped, storage_offset, size, stride, dtype, False)
    t._qparams = (float(quantizer_params[1]), int(quantizer_params[2]))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_meta_tensor_no_storage(dtype, size, stride, requires_grad):
    from ..operators.factories import empty_strided
    return empty_strided(size, stride, dtype=dtype, device="meta", requires_grad=requires_grad)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype, device=device)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from ..nn.parameter import Parameter
    p = Parameter(data, requires_grad)
    p._backend_meta = data._backend_meta
    return p


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    from ..tensor import Tensor
    t = func(*args)
    if isinstance(new_type, type) and issubclass(new_type, Tensor) and type(t) is not new_type:
        t = _as_subclass(t, new_type)
    return _set_state(t, state)


def _set_state(t, state):
    """Apply pickled object state; openreg's backend metadata rides in it under ``BACKEND_META_KEY``."""
    if isinstance(state, tuple) and len(state) == 2:      # (dict state, slots state)
        state = {**(state[0] or {}), **(state[1] or {})}
    if not state:
        return t
    if not isinstance(state, dict):
        raise pickle.UnpicklingError(f"a tensor record has state of type {type(state).__name__}")
    state = dict(state)
    meta = state.pop(BACKEND_META_KEY, None)
    if meta is not None:
        _apply_backend_meta(t, meta)
    for k, v in state.items():
        setattr(t, k, v)
    return t


def _apply_backend_meta(t, meta) -> None:
    storage = t._storage
    saved_type = (getattr(_tls, "saved_types", None) or {}).get(id(storage), storage.device._type)
    if storage.device._type != saved_type:      # mapped to another device type: the metadata does not apply
        return
    hooks = meta_hooks.get(saved_type)
    if hooks is not None:
        hooks[1](t, dict(meta))
    else:
        t._backend_meta = dict(meta)


def _as_subclass(t, cls):
    out = object.__new__(cls)
    out._init_view(t._storage, t._size, t._stride, t._offset, t._dtype)
    out._qparams, out._backend_meta = t._qparams, t._backend_meta
    if hasattr(cls, "_is_param"):
        out._is_param = cls._is_param
    if t.requires_grad:
        out.requires_grad_(True)
    return out


# -- saving: what a tensor reduces to --------------------------------------------------------------------------
def reduce_tensor(t) -> tuple:
    """``Tensor.__reduce_ex__``: PyTorch's rebuild call for ``t`` (storage shared, strides and offset kept)."""
    from ..tensor import Tensor
    from ._torch_names import has_storage_name
    hooks = OrderedDict()
    if t._storage.device._type == "meta":
        func, args = _rebuild_meta_tensor_no_storage, (t._dtype, tuple(t._size), tuple(t._stride),
                                                      t._requires_grad)
    elif t._qparams is not None:
        func, args = _rebuild_qtensor, (TypedStorage(t._storage, t._dtype), t._offset, tuple(t._size),
                                        tuple(t._stride), (per_tensor_affine, *t._qparams), t._requires_grad,
                                        hooks)
    elif not has_storage_name(t._dtype):
        func, args = _rebuild_tensor_v3, (t._storage, t._offset, tuple(t._size), tuple(t._stride),
                                          t._requires_grad, hooks, t._dtype)
    else:
        func, args = _rebuild_tensor_v2, (TypedStorage(t._storage, t._dtype), t._offset, tuple(t._size),
                                          tuple(t._stride), t._requires_grad, hooks)
    state = {}
    if t._backend_meta is not None or t._storage.device._type in meta_hooks:
        hook = meta_hooks.get(t._storage.device._type)
        meta = hook[0](t) if hook is not None else dict(t._backend_meta)
        if meta:
            state[BACKEND_META_KEY] = meta
    if type(t) is Tensor and not state:
        return (func, args)
    return (_rebuild_from_type_v2, (func, type(t), args, state))


def reduce_parameter(p) -> tuple:
    """``Parameter.__reduce_ex__``: PyTorch's ``_rebuild_parameter(data, requires_grad, hooks)``."""
    from ..tensor import Tensor
    data = Tensor._make(p._storage, p._size, p._stride, p._offset, p._dtype)
    data._qparams, data._backend_meta = p._qparams, p._backend_meta
    return (_rebuild_parameter, (data, p.requires_grad, OrderedDict()))


def reduce_storage(storage) -> tuple:
    """``UntypedStorage.__reduce__`` for plain pickling (``pickle.dumps``, multiprocessing): bytes inline."""
    dev = storage.device
    data = None if dev._type == "meta" else storage_bytes(storage).tobytes()
    return (_rebuild_storage, (data, storage.nbytes(), location(dev)))


def storage_bytes(storage):
    """The storage's bytes as a host NumPy uint8 array (a copy)."""
    return storage._backend.to_host_bytes(storage._data, storage._base_offset, storage.nbytes())


def _rebuild_storage(data: bytes | None, nbytes: int, loc: str):
    import numpy as np
    if not isinstance(loc, str) or not isinstance(nbytes, int) or nbytes < 0:
        raise pickle.UnpicklingError(f"a storage record has location {loc!r} and size {nbytes!r}")
    if parse_location(loc)._type != "meta" and (not isinstance(data, bytes) or len(data) != nbytes):
        raise pickle.UnpicklingError(f"a storage record of {nbytes} bytes on {loc} holds "
                                     f"{len(data) if isinstance(data, bytes) else type(data).__name__} bytes")
    host = np.frombuffer(data, dtype=np.uint8).copy() if data else np.empty(0, dtype=np.uint8)
    return restore_storage(host, nbytes, loc)
