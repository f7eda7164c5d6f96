"""``openreg.save`` / ``openreg.load`` in PyTorch's checkpoint format, both ways, without importing PyTorch.

``save`` writes PyTorch's zip format (``archive/data.pkl`` naming ``torch._utils._rebuild_tensor_v2`` and friends,
one 64-byte-aligned record ``archive/data/<key>`` per storage, ``byteorder``, ``version``, a CRC32 per record), so
``torch.load(path, weights_only=True)`` reads it. A device storage is saved with the location
``privateuseone:<index>``, as PyTorch saves a PrivateUse1 storage: a CPU-only PyTorch loads it with
``map_location="cpu"`` and raises without one (it cannot place a storage on a device it does not have).
``load`` reads files of ``torch.save`` (zip and the legacy format) and of ``openreg.save``, mapping PyTorch's global
names onto openreg's objects. Storages are saved once, so views keep sharing them after loading.

``weights_only=True`` (the default) allows only tensors, storages, dtypes, devices, containers, numbers, strings
and the globals added with ``add_safe_globals`` / ``safe_globals``; the decision is made on the name, before any
import. ``map_location`` is a device, a string, a dict ``{saved location: new location}`` or a callable
``fn(storage, location)`` as in PyTorch; ``mmap=True`` backs CPU storages by the file (copy-on-write) instead of
reading them, so their records' CRC32 is not checked (every other record's is).
Backend metadata (``openreg.utils.set_tensor_metadata``) is kept when a tensor comes back on the device type it was
saved from and dropped when it is mapped elsewhere.

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
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np

from ..devices import device as Device
from . import _legacy, _rebuild, _zip
from ._pickling import (
    CheckpointPickler,
    FullUnpickler,
    WeightsOnlyUnpickler,
    add_safe_globals,
    check_opcodes,
    clear_safe_globals,
    get_safe_globals,
    safe_globals,
)

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "register_backend_meta_hooks",
           "safe_globals", "save"]

DEFAULT_PROTOCOL = 2
FILE_FORMAT_VERSION = 3         # the "version" record PyTorch 2.x writes and reads
_meta_hooks = _rebuild.meta_hooks
_umask_lock = threading.Lock()


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
    from ..devices import canonical_type
    if not (callable(serialize) and callable(deserialize)):
        raise TypeError("register_backend_meta_hooks(): serialize and deserialize must be callable")
    _meta_hooks[canonical_type(device_type)] = (serialize, deserialize)


# -- save --------------------------------------------------------------------------------------------------------
def save(obj: Any, f, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` (tensors, storages, containers of them, numbers, strings) to a path or binary file in
    PyTorch's zip checkpoint format. Saving to a path writes a temporary file beside it and renames it into
    place, so a failed save leaves an existing file as it was.

    >>> import io, zipfile, openreg
    >>> buf = io.BytesIO()
    >>> openreg.save([openreg.ones(2)], buf)
    >>> zipfile.ZipFile(buf).namelist()[:4]
    ['archive/data.pkl', 'archive/.format_version', 'archive/.storage_alignment', 'archive/byteorder']
    """
    if not _use_new_zipfile_serialization:
        raise NotImplementedError("openreg.save writes only the zip format (_use_new_zipfile_serialization=True); "
                                  "openreg.load reads the legacy format")
    if pickle_module is not pickle:
        raise NotImplementedError("openreg.save: only the standard pickle module is supported")
    if isinstance(f, (str, os.PathLike)):
        _save_to_path(obj, os.fspath(f), pickle_protocol, _disable_byteorder_record)
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"save(): expected a path or a file-like object with write(), got {type(f).__name__}")
    _write_zip(obj, f, pickle_protocol, _disable_byteorder_record)


def _write_zip(obj: Any, f, protocol: int, no_byteorder: bool) -> None:
    buf = io.BytesIO()
    pickler = CheckpointPickler(buf, protocol)
    pickler.dump(obj)
    writer = _zip.ZipWriter(f)
    writer.write_record("archive/data.pkl", buf.getbuffer())
    writer.write_record("archive/.format_version", b"1")
    writer.write_record("archive/.storage_alignment", str(_zip.ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("archive/byteorder", sys.byteorder.encode())
    for key, storage in enumerate(pickler.storages):
        writer.write_record(f"archive/data/{key}", _rebuild.storage_bytes(storage))
    writer.write_record("archive/version", f"{FILE_FORMAT_VERSION}\n".encode())
    writer.write_record("archive/.data/serialization_id", f"{int.from_bytes(os.urandom(16), 'little'):040d}".encode())
    writer.close()


def _save_to_path(obj: Any, path: str, protocol: int, no_byteorder: bool) -> None:
    """Write to a temporary file beside ``path`` and rename it into place: a failed save leaves ``path`` as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            _write_zip(obj, fh, protocol, no_byteorder)
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


# -- load --------------------------------------------------------------------------------------------------------
_TRUE_VALUES = ("1", "y", "yes", "true")


def _resolve_weights_only(weights_only: bool | None, pickle_module) -> bool:
    """PyTorch's choice: ``TORCH_FORCE_WEIGHTS_ONLY_LOAD`` forces True, ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD``
    turns an unspecified ``weights_only`` into False (with a warning); otherwise unspecified means True unless a
    ``pickle_module`` was given."""
    force = os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    force_no = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in _TRUE_VALUES
    if force and force_no:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force:
        return True
    if force_no and weights_only is None:
        import warnings
        warnings.warn("Environment variable TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD detected, since the`weights_only` "
                      "argument was not explicitly passed to `openreg.load`, forcing weights_only=False.",
                      stacklevel=3)
        return False
    if weights_only is None:
        return pickle_module is None
    return bool(weights_only)


def load(f, map_location=None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args) -> Any:
    """Load a checkpoint written by ``openreg.save`` or ``torch.save`` (zip or legacy format).

    ``weights_only`` alone chooses the unpickler (``pickle_module`` may only be the standard ``pickle``). Left
    unspecified it is True, as in PyTorch, unless ``pickle_module`` is given or the environment sets
    ``TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD=1``; ``TORCH_FORCE_WEIGHTS_ONLY_LOAD=1`` makes it always True.

    >>> import io, openreg
    >>> buf = io.BytesIO()
    >>> openreg.save(openreg.tensor([1.0, 2.0]), buf)
    >>> _ = buf.seek(0)
    >>> openreg.load(buf, map_location="cpu").tolist()
    [1.0, 2.0]
    """
    if pickle_module not in (None, pickle):
        raise NotImplementedError("openreg.load: only the standard pickle module is supported")
    weights_only = _resolve_weights_only(weights_only, pickle_module)
    if map_location is not None and not (callable(map_location) or isinstance(map_location, (str, Device, dict))):
        raise ValueError(f"map_location should be a str, a device, a dict or a callable, got "
                         f"{type(map_location).__name__}")
    if isinstance(map_location, dict):
        map_location = {str(k): v for k, v in map_location.items()}
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh, repr(os.fspath(f)), os.fspath(f), map_location, weights_only, mmap, pickle_load_args)
    name = getattr(f, "name", None)
    path = os.fspath(name) if isinstance(name, (str, os.PathLike)) and os.path.isfile(name) else None
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load(f, repr(path) if path else f"<{type(f).__name__}>", path, map_location, weights_only, mmap,
                 pickle_load_args)


def _load(f, name: str, path: str | None, map_location, weights_only: bool, mmap: bool | None, load_args):
    if mmap and path is None:
        raise ValueError("f must be a file path in order to use the mmap argument")
    base = WeightsOnlyUnpickler if weights_only else FullUnpickler

    def unpickler_cls(stream, load_pid):
        return base(stream, load_pid, **load_args)

    previous = getattr(_rebuild._tls, "map_location", None), getattr(_rebuild._tls, "saved_types", None)
    _rebuild._tls.map_location = map_location
    _rebuild._tls.saved_types = {}   # id(rebuilt storage) -> device type it was saved from
    try:
        if _zip.is_zip(f):
            return _load_zip(f, name, path if mmap else None, unpickler_cls)
        if _legacy.is_legacy(f):
            if mmap:
                raise RuntimeError("mmap can only be used with files saved with "
                                   "`torch.save(_use_new_zipfile_serialization=True)`, please torch.save your "
                                   "checkpoint with this option in order to use mmap.")
            return _legacy.load_legacy(f, name, unpickler_cls)
        raise RuntimeError(f"Invalid magic number; corrupt file? ({name} is neither a PyTorch zip checkpoint nor a "
                           f"legacy one)")
    except Exception as e:
        if not weights_only and not isinstance(e, (zipfile.BadZipFile, pickle.UnpicklingError)):
            raise       # a trusted file's own objects may raise anything while they are rebuilt
        if name in str(e):
            raise
        if isinstance(e, (pickle.UnpicklingError, RuntimeError)):
            raise type(e)(f"openreg.load({name}): {e}") from e
        raise pickle.UnpicklingError(f"openreg.load({name}): the file is corrupt ({type(e).__name__}: {e})") from e
    finally:
        _rebuild._tls.map_location, _rebuild._tls.saved_types = previous


_KNOWN_RECORDS = ("data.pkl", "version", "byteorder")


def _load_zip(f, name: str, mmap_path: str | None, unpickler_cls):
    try:
        zf = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, IndexError, struct.error) as e:
        raise RuntimeError(f"PytorchStreamReader failed reading zip archive: failed finding central directory "
                           f"({name}: {e})") from None
    infos = {i.filename: i for i in zf.infolist()}
    first = next(iter(infos), "")
    prefix = first.split("/", 1)[0] + "/" if "/" in first else ""
    for rec in infos:
        rel = rec.removeprefix(prefix)
        if not (rec.startswith(prefix) and (rel in _KNOWN_RECORDS or rel.startswith(("data/", ".")))):
            raise RuntimeError(f"openreg.load({name}): unknown record '{rec}': the file was written by a newer "
                               f"PyTorch or is not a torch.save checkpoint (a TorchScript archive?)")
    for rec, info in infos.items():     # the small records: read (CRC-checked) even when nothing needs them
        if not rec.startswith(prefix + "data/") and rec != prefix + "data.pkl":
            _read(zf, info, name)
    if prefix + "data.pkl" not in infos:
        raise RuntimeError(f"openreg.load({name}): no record '{prefix}data.pkl'; not a torch.save checkpoint")
    for rec, newest in (("version", FILE_FORMAT_VERSION), (".format_version", 1)):
        if prefix + rec in infos:
            text = _read(zf, infos[prefix + rec], name).decode("ascii", "replace").strip()
            if not text.isdigit() or int(text) > newest:
                raise RuntimeError(f"openreg.load({name}): record '{prefix}{rec}' says format version {text!r}; "
                                   f"openreg reads versions up to {newest} (written by a newer PyTorch?)")
    if prefix + "byteorder" in infos and _read(zf, infos[prefix + "byteorder"], name) != sys.byteorder.encode():
        raise RuntimeError(f"openreg.load({name}): record '{prefix}byteorder' is not {sys.byteorder}; "
                           f"byte-swapping checkpoints is not supported")
    whole = np.memmap(mmap_path, dtype=np.uint8, mode="c") if mmap_path else None
    storages: dict[str, Any] = {}

    def load_pid(pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] in ("storage", b"storage")):
            raise pickle.UnpicklingError(f"record '{prefix}data.pkl' has an unknown persistent id {pid!r}")
        _, stype, key, loc, numel = pid
        key = key.decode("ascii", "replace") if isinstance(key, bytes) else str(key)
        from .. import dtypes
        from ..storage import UntypedStorage
        if stype is UntypedStorage:
            dtype = None
        elif isinstance(stype, _rebuild.StorageType):
            dtype = stype.dtype
        else:
            raise pickle.UnpicklingError(f"record '{prefix}data.pkl' names {stype!r} as a storage type")
        if not isinstance(numel, int) or numel < 0:
            raise pickle.UnpicklingError(f"record '{prefix}data.pkl' gives storage {key} {numel!r} elements")
        nbytes = numel * (dtype or dtypes.uint8).itemsize
        untyped = storages.get(key)
        if untyped is None:
            untyped = storages[key] = _load_storage(zf, infos, f"{prefix}data/{key}", nbytes, loc, name, whole)
        return untyped if dtype is None else _rebuild.TypedStorage(untyped, dtype)

    pkl = _read(zf, infos[prefix + "data.pkl"], name)
    check_opcodes(pkl, prefix + "data.pkl")
    return unpickler_cls(io.BytesIO(pkl), load_pid).load()


def _read(zf: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> bytes:
    try:
        return zf.read(info)
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as e:
        raise RuntimeError(f"openreg.load({name}): record '{info.filename}' is corrupt ({e})") from None


def _load_storage(zf, infos, record: str, nbytes: int, loc, name: str, whole):
    info = infos.get(record)
    if _rebuild.parse_location(loc)._type == "meta":
        return _rebuild.restore_storage(None, nbytes, loc)
    if info is None:
        raise RuntimeError(f"openreg.load({name}): record '{record}' is missing")
    if info.file_size != nbytes:
        raise RuntimeError(f"openreg.load({name}): record '{record}' holds {info.file_size} bytes; its tensor "
                           f"record says {nbytes}")
    if whole is not None:
        start = _zip.data_offset(zf, info)
        if start + nbytes > whole.size:
            raise RuntimeError(f"openreg.load({name}): record '{record}' runs past the end of the file")
        host = whole[start:start + nbytes]
    else:
        host = np.empty(nbytes, dtype=np.uint8)
        try:
            with zf.open(info) as r:
                got = r.readinto(memoryview(host))
                r.read(1)       # reaching the end makes zipfile check the CRC32
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as e:
            raise RuntimeError(f"openreg.load({name}): record '{record}' is corrupt ({e})") from None
        if got != nbytes:
            raise RuntimeError(f"openreg.load({name}): record '{record}' is truncated")
    return _rebuild.restore_storage(host, nbytes, loc)
