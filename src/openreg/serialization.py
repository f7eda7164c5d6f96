"""``openreg.save`` / ``openreg.load``: pickle-based serialization of tensors and containers of them.

Storages are saved once (views keep sharing them after loading) as their bytes plus their device; a device
tensor comes back on the same device index unless ``map_location`` says otherwise (as in PyTorch: a device,
a string, a dict ``{saved location: new location}`` or a callable ``fn(storage, location)``). Backend metadata
(``openreg.utils.set_tensor_metadata``) is kept when a tensor is restored to the device type it was saved from
and dropped when it is mapped elsewhere (e.g. to the CPU). ``weights_only=True`` (the default) unpickles
only tensors, storages, dtypes, devices, containers, numbers and strings.

>>> import io, openreg
>>> buf = io.BytesIO()
>>> t = openreg.arange(6.0).view(2, 3)
>>> openreg.save({"w": t, "row": t[1], "step": 3}, buf)
>>> _ = buf.seek(0)
>>> d = openreg.load(buf)
>>> d["w"].tolist(), d["row"].tolist(), d["step"]
([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], [3.0, 4.0, 5.0], 3)
>>> d["row"].untyped_storage() is d["w"].untyped_storage()
True
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import sys
import tempfile
import threading
import zlib
from collections.abc import Callable
from typing import Any

from .devices import CPU, PRIVATEUSE1
from .devices import device as Device

__all__ = ["load", "register_backend_meta_hooks", "save"]

_MAGIC = b"OPENREG\x02"
_HEADER = struct.Struct("<QI")   # payload length, CRC32 of the payload
_PROTOCOL = 4
_tls = threading.local()
_meta_hooks: dict[str, tuple[Callable, Callable]] = {}


def register_backend_meta_hooks(device_type: str, serialize: Callable, deserialize: Callable) -> None:
    """Customise how a device type's backend metadata is saved and restored.

    ``serialize(tensor) -> dict`` gives what to save; ``deserialize(tensor, dict)`` applies it on load (only when
    the tensor is restored to ``device_type``). Without hooks the metadata dict is saved and restored as is.

    >>> import openreg
    >>> openreg.serialization.register_backend_meta_hooks(
    ...     "privateuseone", lambda t: openreg.utils.get_tensor_metadata(t),
    ...     lambda t, d: openreg.utils.set_tensor_metadata(t, d))
    >>> _ = openreg.serialization._meta_hooks.pop("privateuseone")
    """
    from .devices import canonical_type
    if not (callable(serialize) and callable(deserialize)):
        raise TypeError("register_backend_meta_hooks(): serialize and deserialize must be callable")
    _meta_hooks[canonical_type(device_type)] = (serialize, deserialize)


def _location(dev: Device) -> str:
    """The saved location string: ``cpu``, ``meta`` or ``privateuseone:<index>`` (independent of renames)."""
    if dev._type == PRIVATEUSE1:
        return f"{PRIVATEUSE1}:{dev.index or 0}"
    return dev._type


# -- pickling ----------------------------------------------------------------------------------------------
def _reduce_storage(storage) -> tuple:
    dev = storage.device
    data = None if dev._type == "meta" else _storage_bytes(storage)
    return (_rebuild_storage, (data, storage.nbytes(), _location(dev)))


def _storage_bytes(storage) -> bytes:
    return storage._backend.to_host_bytes(storage._data, storage._base_offset, storage.nbytes()).tobytes()


def _reduce_tensor(t) -> tuple:
    from .tensor import Tensor
    meta = None
    if t._backend_meta is not None or t._storage.device._type in _meta_hooks:
        hooks = _meta_hooks.get(t._storage.device._type)
        meta = hooks[0](t) if hooks is not None else dict(t._backend_meta)
        meta = meta or None
    cls = type(t) if type(t) is not Tensor else None
    return (_rebuild_tensor, (t._storage, t._offset, tuple(t._size), tuple(t._stride), t._dtype, t._requires_grad,
                              t._qparams, meta, cls))


def _map(saved: Device) -> Device | None:
    """Where ``map_location`` sends a storage saved on ``saved`` (None: where it was)."""
    ml = getattr(_tls, "map_location", None)
    if ml is None or callable(ml):
        return None
    if isinstance(ml, dict):
        for src, dst in ml.items():
            if Device(src) == saved or (Device(src).index is None and Device(src)._type == saved._type):
                return Device(dst)
        return None
    return Device(ml)


def _rebuild_storage(data: bytes | None, nbytes: int, location: str):
    if not isinstance(location, str) or not isinstance(nbytes, int) or nbytes < 0:
        raise pickle.UnpicklingError(f"a storage record has location {location!r} and size {nbytes!r}")
    saved = Device(location)
    if saved._type != "meta" and (not isinstance(data, bytes) or len(data) != nbytes):
        raise pickle.UnpicklingError(f"a storage record of {nbytes} bytes on {location} holds "
                                     f"{len(data) if isinstance(data, bytes) else type(data).__name__} bytes")
    storage = _restore_storage(data, nbytes, saved)
    types = getattr(_tls, "saved_types", None)
    if types is not None:
        types[id(storage)] = saved._type
    return storage


def _restore_storage(data: bytes | None, nbytes: int, saved: Device):
    import numpy as np

    from . import dtypes
    from .storage import UntypedStorage
    from .tensor import Size, Tensor
    if saved._type == "meta":
        return UntypedStorage(nbytes, device="meta")
    host = np.frombuffer(data, dtype=np.uint8).copy() if data else np.empty(0, dtype=np.uint8)
    cpu_storage = UntypedStorage._wrap(host, nbytes, CPU)
    ml = getattr(_tls, "map_location", None)
    if callable(ml):
        mapped = ml(cpu_storage, str(saved))
        if mapped is not None:
            return mapped
    target = _map(saved) or saved
    if target._type == "cpu":
        return cpu_storage
    if target._type == "meta":
        return UntypedStorage(nbytes, device="meta")
    flat = Tensor._make(cpu_storage, Size((nbytes,)), (1,), 0, dtypes.uint8)
    return flat.to(target).untyped_storage()


def _rebuild_tensor(storage, offset: int, size: tuple, stride: tuple, dtype, requires_grad: bool, qparams,
                    meta, cls=None):
    from .tensor import Size, Tensor
    _check_in_bounds(storage, offset, size, stride, dtype)
    t = Tensor._make(storage, Size(size), tuple(stride), offset, dtype)
    if cls is not None:
        t = _as_subclass(t, cls)
    if qparams is not None:
        t._qparams = tuple(qparams)
    saved_type = (getattr(_tls, "saved_types", None) or {}).get(id(storage), storage.device._type)
    if meta is not None and storage.device._type == saved_type:
        hooks = _meta_hooks.get(storage.device._type)
        if hooks is not None:
            hooks[1](t, dict(meta))
        else:
            t._backend_meta = dict(meta)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_in_bounds(storage, offset, size, stride, dtype) -> None:
    """A loaded tensor must lie inside its storage (Python ints: no overflow, whatever the file says)."""
    from .dtypes import dtype as Dtype
    if not isinstance(dtype, Dtype):
        raise pickle.UnpicklingError(f"a tensor record names {dtype!r} as its dtype, not an openreg dtype")
    if not (isinstance(offset, int) and all(isinstance(v, int) for v in (*size, *stride))):
        raise pickle.UnpicklingError(f"a tensor record has non-integer sizes {size}, strides {stride} or "
                                     f"storage offset {offset}")
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if offset < 0 or any(v < 0 for v in (*size, *stride)):
        raise RuntimeError(f"setStorage: negative sizes {list(size)}, strides {list(stride)} or storage offset "
                           f"{offset}")
    if storage.device.type == "meta" or 0 in size:
        return
    needed = (offset + sum((n - 1) * st for n, st in zip(size, stride)) + 1) * dtype.itemsize
    if needed > storage.nbytes():
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {dtype.itemsize} requiring a storage size of {needed} are out of bounds for "
                           f"storage of size {storage.nbytes()}")


def _as_subclass(t, cls):
    out = object.__new__(cls)
    out._init_view(t._storage, t._size, t._stride, t._offset, t._dtype)
    if hasattr(cls, "_is_param"):
        out._is_param = True
    return out


# -- the public functions ----------------------------------------------------------------------------------
def save(obj: Any, f) -> None:
    """Save ``obj`` (tensors, storages and containers of them, numbers, strings) to a path or binary file.

    >>> import io, openreg
    >>> buf = io.BytesIO()
    >>> openreg.save([openreg.ones(2)], buf)
    >>> buf.getvalue()[:7]
    b'OPENREG'
    """
    if isinstance(f, (str, os.PathLike)):
        _save_to_path(obj, os.fspath(f))
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"save(): expected a path or a file-like object with write(), got {type(f).__name__}")
    buf = io.BytesIO()
    pickle.Pickler(buf, protocol=_PROTOCOL).dump(obj)
    payload = buf.getbuffer()
    f.write(_MAGIC + _HEADER.pack(len(payload), zlib.crc32(payload)))
    f.write(payload)


def _save_to_path(obj: Any, path: str) -> None:
    """Write to a temporary file beside ``path`` and rename it into place: a failed save leaves ``path`` as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            save(obj, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _new_file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _new_file_mode(path: str) -> int:
    """The permissions ``open(path, "w")`` would give: the existing file's, else 0o666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        pass
    with _umask_lock:
        mask = os.umask(0)
        os.umask(mask)
    return 0o666 & ~mask


_umask_lock = threading.Lock()


_SAFE_GLOBALS = {
    ("openreg.serialization", "_rebuild_tensor"), ("openreg.serialization", "_rebuild_storage"),
    ("openreg.dtypes", "_dtype_by_name"), ("openreg.devices", "device"), ("openreg.tensor", "Size"),
    ("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"),
    ("builtins", "slice"), ("builtins", "range"),
}


class _WeightsOnlyUnpickler(pickle.Unpickler):
    """Only openreg's own rebuild functions, dtypes, devices and plain containers may be loaded."""

    def find_class(self, module: str, name: str):
        # Decide before anything is imported: a file must not be able to import a module by naming it.
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        if module.startswith("openreg.") and module in sys.modules:
            obj = getattr(sys.modules[module], name, None)
            from .tensor import Tensor
            if isinstance(obj, type) and issubclass(obj, Tensor):
                return obj
        raise pickle.UnpicklingError(
            f"Weights only load failed. Re-running `openreg.load` with `weights_only` set to `False` will likely "
            f"succeed, but it can result in arbitrary code execution. Do it only if you trust the source of the "
            f"file. Unsupported global: GLOBAL {module}.{name} was not an allowed global by default.")


def load(f, map_location=None, weights_only: bool = True) -> Any:
    """Load what ``save`` wrote; ``map_location`` moves storages as in PyTorch.

    >>> import io, openreg
    >>> buf = io.BytesIO()
    >>> openreg.save(openreg.tensor([1.0, 2.0]), buf)
    >>> _ = buf.seek(0)
    >>> openreg.load(buf, map_location="cpu").tolist()
    [1.0, 2.0]
    """
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return load(fh, map_location, weights_only)
    if map_location is not None and not (callable(map_location) or isinstance(map_location, (str, Device, dict))):
        raise ValueError(f"map_location should be a str, a device, a dict or a callable, got "
                         f"{type(map_location).__name__}")
    if isinstance(map_location, dict):
        map_location = {str(k): v for k, v in map_location.items()}
    name = _file_name(f)
    payload = _read_payload(f, name)
    unpickler_cls = _WeightsOnlyUnpickler if weights_only else pickle.Unpickler
    previous = getattr(_tls, "map_location", None), getattr(_tls, "saved_types", None)
    _tls.map_location = map_location
    _tls.saved_types = {}   # id(rebuilt storage) -> device type it was saved from
    try:
        return unpickler_cls(io.BytesIO(payload)).load()
    except Exception as e:
        if not weights_only:    # a trusted file's own objects may raise anything while they are rebuilt
            raise
        if isinstance(e, (pickle.UnpicklingError, RuntimeError)):
            raise type(e)(f"openreg.load({name}), data record: {e}") from e
        raise pickle.UnpicklingError(f"openreg.load({name}): the data record is corrupt "
                                     f"({type(e).__name__}: {e})") from e
    finally:
        _tls.map_location, _tls.saved_types = previous


def _file_name(f) -> str:
    name = getattr(f, "name", None)
    return repr(os.fspath(name)) if isinstance(name, (str, os.PathLike)) else f"<{type(f).__name__}>"


def _read_payload(f, name: str) -> bytes:
    """The pickle record after the magic number and header, checked against its length and CRC32."""
    head = f.read(len(_MAGIC))
    if head != _MAGIC:
        raise RuntimeError(f"Invalid magic number; corrupt file? ({name} was not written by openreg.save)")
    header = f.read(_HEADER.size)
    if len(header) != _HEADER.size:
        raise RuntimeError(f"openreg.load: {name} is truncated (its header is incomplete)")
    length, crc = _HEADER.unpack(header)
    chunks, got = [], 0
    while got < length:     # in bounded chunks: a corrupted length must not allocate its size up front
        chunk = f.read(min(length - got, 1 << 24))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    payload = b"".join(chunks)
    if len(payload) != length:
        raise RuntimeError(f"openreg.load: {name} is truncated: its data record has {len(payload)} of "
                           f"{length} bytes")
    if zlib.crc32(payload) != crc:
        raise RuntimeError(f"openreg.load: {name} is corrupt: CRC32 mismatch in its data record")
    return payload
