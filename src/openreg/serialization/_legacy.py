"""Reading PyTorch's legacy (pre-1.6, ``_use_new_zipfile_serialization=False``) checkpoint format.

The stream is a sequence of pickles: the magic number, the protocol version, system information, the object
(storages as ``('storage', type, key, location, numel, view_metadata)`` persistent ids), the list of storage keys,
and then each storage's bytes as a little-endian int64 element count followed by the elements. The storages are
needed while the object is unpickled but their bytes come after it, so a first pass collects the persistent ids
with an inert unpickler that runs nothing and imports nothing; the second pass builds the real objects.
"""
from __future__ import annotations

import io
import pickle
import struct

import numpy as np

from . import _rebuild
from ._pickling import WeightsOnlyUnpickler, check_opcodes, next_pickle
from ._torch_names import torch_to_openreg

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001


class _Inert:
    """Stands for every object of the first pass; accepts whatever the pickle does to it."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, value):
        pass

    def extend(self, values):
        pass


class _PidCollector(pickle.Unpickler):
    def __init__(self, f):
        super().__init__(f)
        self.pids: list = []

    def find_class(self, module, name):
        obj = torch_to_openreg(module, name)
        if isinstance(obj, _rebuild.StorageType):
            return obj
        return type(name, (_Inert,), {})

    def persistent_load(self, pid):
        self.pids.append(pid)
        return _Inert()


# What unpickling a corrupted stream can raise (the unpicklers here import nothing and run no user code).
_CORRUPT = (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError, OverflowError,
            AttributeError, UnicodeDecodeError, MemoryError, struct.error)


def _small(f, name: str, what: str):
    """Load one of the small header pickles (ints, dicts, lists of str) with nothing allowed beyond builtins."""
    try:
        return WeightsOnlyUnpickler(io.BytesIO(next_pickle(f, what)), _no_pid).load()
    except _CORRUPT as e:
        raise RuntimeError(f"openreg.load({name}): legacy checkpoint, {what} is corrupt ({e})") from None


def _no_pid(pid):
    raise pickle.UnpicklingError("unexpected persistent id in a header record")


def is_legacy(f) -> bool:
    """Whether the stream starts with the legacy format's magic-number pickle (position kept)."""
    start = f.tell()
    try:
        head = f.read(64)       # the magic number's pickle is about 16 bytes
        return WeightsOnlyUnpickler(io.BytesIO(head[:check_opcodes(head, "magic")]), _no_pid).load() == MAGIC_NUMBER
    except _CORRUPT:
        return False
    finally:
        f.seek(start)


def load_legacy(f, name: str, unpickler_cls):
    """The object of a legacy checkpoint (``f`` positioned at its start, seekable)."""
    if _small(f, name, "the magic number") != MAGIC_NUMBER:
        raise RuntimeError(f"Invalid magic number; corrupt file? ({name})")
    if (version := _small(f, name, "the protocol version")) != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version} ({name})")
    info = _small(f, name, "the system information")
    if isinstance(info, dict) and info.get("little_endian") is False:
        raise RuntimeError(f"openreg.load({name}): big-endian legacy checkpoints are not supported")
    obj = next_pickle(f, "object")
    collector = _PidCollector(io.BytesIO(obj))
    try:
        collector.load()
    except _CORRUPT as e:
        raise pickle.UnpicklingError(f"openreg.load({name}): legacy checkpoint, the object record is corrupt "
                                     f"({type(e).__name__}: {e})") from None
    keys = _small(f, name, "the storage key list")
    specs = {}      # key -> (dtype, numel, location)
    for pid in collector.pids:
        if isinstance(pid, tuple) and pid and pid[0] in ("module", b"module"):
            continue        # a pickled nn.Module's class (and its source); weights_only refuses the class itself
        if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] in ("storage", b"storage")
                and isinstance(pid[1], _rebuild.StorageType)):
            raise pickle.UnpicklingError(f"openreg.load({name}): legacy checkpoint has an unknown persistent id "
                                         f"{pid!r}")
        specs.setdefault(pid[2], (pid[1].dtype, pid[4], pid[3]))
    if not isinstance(keys, list) or set(keys) != set(specs):
        raise RuntimeError(f"openreg.load({name}): legacy checkpoint's storage key list does not match its object")
    storages = {}
    for key in keys:
        dtype, numel, loc = specs[key]
        head = f.read(8)
        if len(head) != 8:
            raise RuntimeError(f"openreg.load({name}): legacy checkpoint is truncated at storage {key!r}")
        (count,) = struct.unpack("<q", head)
        if not isinstance(numel, int) or count != numel:
            raise RuntimeError(f"openreg.load({name}): legacy storage {key!r} holds {count} elements, its "
                               f"record says {numel}")
        nbytes = numel * dtype.itemsize
        host = np.empty(nbytes, dtype=np.uint8)
        if f.readinto(memoryview(host)) != nbytes:
            raise RuntimeError(f"openreg.load({name}): legacy checkpoint is truncated in storage {key!r}")
        storages[key] = _rebuild.restore_storage(host, nbytes, loc)

    def load_pid(pid):
        if pid[0] in ("module", b"module"):
            return pid[1]
        _, stype, key, _loc, _numel, view = pid
        untyped = storages[key]
        if view is not None:
            _view_key, offset, size = view
            item = stype.dtype.itemsize
            untyped = untyped[offset * item:(offset + size) * item]
        return _rebuild.TypedStorage(untyped, stype.dtype)

    return unpickler_cls(io.BytesIO(obj), load_pid).load()
